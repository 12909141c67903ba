#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: per-port PFC enable (ports[].pfc_enable, SONiC's
PORT_QOS_MAP pfc_enable) and SONiC's bare Mb/s port speed.
Three hosts; h0 and h1 both send lossless priority 3 (tag 24) to h2 behind
a shaped (congested) port. p0 runs PFC on priority 3 as qos.lossless says;
p1 has `pfc_enable: []`, so priority 3 is lossy there:
 * p0 sends XOFF/XON towards h0 (tshark decodes them) and loses nothing;
 * p1 never sends a PFC frame (none captured at h1, none counted) and its
   priority 3 overflow is dropped as lossy_buffer_full, every packet either
   delivered or counted;
 * a PFC XOFF for priority 3 received on p1 is ignored and counted
   (pfc_ignored_rx); the same frame on p0 is honoured (pfc_xoff_rx).
p0's speed is written SONiC's way, `speed: 1000` (1000 Mb/s, p1's `1G`)."""
from scapy.all import IP, UDP, Ether, Raw

import swlib
from swlib import Capture, Results, Switch, Topo, ns, port, prio

r = Results()
SW = ["02:00:00:00:01:01", "02:00:00:00:02:01", "02:00:00:00:03:01"]
CONFIG = """
switch: { mode: l3, workers: 1, idle_sleep_us: 20 }
ports:
  - { name: p0, device: net_af_packet0, ipv4: 10.0.1.1/24, speed: 1000, mac: "02:00:00:00:01:01" }
  - { name: p1, device: net_af_packet1, ipv4: 10.0.2.1/24, speed: 1G, mac: "02:00:00:00:02:01",
      pfc_enable: [] }
  - { name: p2, device: net_af_packet2, ipv4: 10.0.3.1/24, speed: 1G, mac: "02:00:00:00:03:01",
      shaper: 20M }
qos: { tag_map: { 24: 3 }, lossless: [3], lossy_priority: 0, lossy_tag: 0 }
""" + swlib.shaped_buffer()
N = 300


def stream(h, src_mac, n, sport):
    return [Ether(src=src_mac, dst=SW[h]) / IP(src=f"10.0.{h + 1}.2", dst="10.0.3.2", tos=0x60) /
            UDP(sport=sport, dport=9) / Raw(i.to_bytes(4, "big") + bytes(996)) for i in range(n)]


with Topo(3, "pe") as t, Switch(t, swlib.write_config(CONFIG)) as sw:
    for h in range(3):
        ns(t.host(h), ["ping", "-c", "1", "-W", "2", f"10.0.{h + 1}.1"], check=False)
    base = sw.stats()
    with Capture(t.host(0), "eth0", "ether proto 0x8808") as cap0, \
         Capture(t.host(1), "eth0", "ether proto 0x8808") as cap1, \
         Capture(t.host(2), "eth0", "udp port 9") as data_cap:
        # Interleaved, so both ingress groups fill while p2 drains at 20 Mb/s.
        s0, s1 = stream(0, t.mac(0), N, 3000), stream(1, t.mac(1), N, 3001)
        swlib.send(t.host(0), s0[:N // 2])
        swlib.send(t.host(1), s1)
        swlib.send(t.host(0), s0[N // 2:])
        idle = sw.wait_idle(rx_at_least={("p0", 3): prio(base, "p0", 3)["rx_packets"] + N,
                                         ("p1", 3): prio(base, "p1", 3)["rx_packets"] + N})
        f0 = cap0.stop(expect=port(idle, "p0")["pfc_frames_tx"] - port(base, "p0")["pfc_frames_tx"])
        f1 = cap1.stop(expect=port(idle, "p1")["pfc_frames_tx"] - port(base, "p1")["pfc_frames_tx"])
        p2_tx = sum(prio(idle, "p2", q)["tx_packets"] - prio(base, "p2", q)["tx_packets"] for q in range(8))
        got = data_cap.stop(expect=p2_tx)
        dec0 = swlib.tshark_fields(cap0.file, ["macc.cbfc.enbv", "macc.cbfc.pause_time.c3"])
    q0, q1 = prio(idle, "p0", 3), prio(idle, "p1", 3)
    r.check(q0["pfc_xoff_tx"] >= 1 and q0["pfc_xon_tx"] >= 1,
            f"p0 (PFC on priority 3) sent XOFF ({q0['pfc_xoff_tx']}) and XON ({q0['pfc_xon_tx']})")
    r.check(len(dec0) >= 2 and all(int(d["macc.cbfc.enbv"], 16) == 0x08 for d in dec0),
            f"tshark decoded {len(dec0)} PFC frames at h0, each for priority 3")
    r.eq(port(idle, "p1")["pfc_frames_tx"], 0, "p1 (pfc_enable: []) sent no PFC frame")
    r.eq(q1["pfc_xoff_tx"] + q1["pfc_xon_tx"] + q1["pfc_refresh_tx"], 0, "p1 priority 3: no XOFF/XON/refresh")
    r.eq(len(f1), 0, "no PFC frame captured at h1")
    from0 = sum(1 for p in got if p[UDP].sport == 3000)
    from1 = sum(1 for p in got if p[UDP].sport == 3001)
    r.eq(q0["drops_total"], 0, "p0 priority 3 lost nothing (paused, headroom held)")
    r.eq(from0, N, "every p0 packet delivered")
    lossy = q1["drops"]["lossy_buffer_full"]
    r.check(lossy > 0, f"p1 priority 3 dropped as lossy ({lossy} lossy_buffer_full) instead of pausing")
    r.eq(q1["drops_total"], lossy, "p1 priority 3: no other drop reason")
    r.eq(from1 + lossy, N, "p1: delivered + lossy_buffer_full = sent")
    r.eq(q1["headroom_watermark"], 0, "p1 priority 3 never used headroom (it has none)")

    # A peer that pauses priority 3 anyway: honoured on p0, ignored on p1.
    before = sw.stats()
    for h in (0, 1):
        swlib.send(t.host(h), [swlib.pfc_frame(t.mac(h), 0x08, [0, 0, 0, 1, 0, 0, 0, 0])])
    swlib.wait_until(lambda: port(sw.stats(), "p0")["pfc_frames_rx"] > port(before, "p0")["pfc_frames_rx"]
                     and port(sw.stats(), "p1")["pfc_frames_rx"] > port(before, "p1")["pfc_frames_rx"],
                     10, "the two PFC frames received")
    st = sw.stop()
    r.eq(prio(st, "p0", 3)["pfc_xoff_rx"] - prio(before, "p0", 3)["pfc_xoff_rx"], 1, "p0 honoured the XOFF")
    r.eq(prio(st, "p0", 3)["pfc_ignored_rx"], 0, "p0 ignored none")
    r.eq(prio(st, "p1", 3)["pfc_ignored_rx"], 1, "p1 ignored the XOFF for priority 3 and counted it")
    r.eq(prio(st, "p1", 3)["pfc_xoff_rx"], 0, "p1 did not take it as an XOFF")
    r.eq(st["pool_in_use"], 0, "all mbufs returned")
r.done()
