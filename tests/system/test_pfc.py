#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: IEEE 802.1Qbb PFC done in software by pfcswitch.
 A. Generation: lossless traffic into a shaped (congested) egress fills the
    ingress priority group past XOFF; the switch sends PFC towards the sender,
    which tshark (a decoder nobody here wrote) decodes with the right class
    enable vector and quanta, then XON. With enough headroom nothing lossless
    is lost, while a lossy priority sharing the ports drops under its counter.
 B. A host that ignores pause (veth, like rxe, never honours it) overruns a
    small headroom: the excess is counted as lossless_headroom_exceeded,
    exactly sent - received, never silently lost.
 C. Response: a PFC frame injected into a port stops that priority's egress
    for quanta x 512 bit times at the port speed, other priorities keep
    flowing; XON resumes early; an 802.3x PAUSE holds every priority;
    malformed MAC control frames are counted."""
import contextlib

from scapy.all import IP, UDP, Ether, Raw

import swlib
from swlib import Capture, Results, Sender, Switch, Topo, ns, port, prio, wait_until

r = Results()
SW0 = "02:00:00:00:01:01"


def stream(src_mac, tos, n, size, sport, first=0):
    return [Ether(src=src_mac, dst=SW0) / IP(src="10.0.1.2", dst="10.0.2.2", tos=tos) /
            UDP(sport=sport, dport=9) / Raw((first + i).to_bytes(4, "big") + bytes(size - 4)) for i in range(n)]


def warm(t):
    for h, gw in ((0, "10.0.1.1"), (1, "10.0.2.1")):
        ns(t.host(h), ["ping", "-c", "1", "-W", "2", gw], check=False)


def data_tx(st, name):
    """Data packets port `name` sent, on any priority (switch counters; a
    Tagger rule may move them to another priority's queue)."""
    return sum(prio(st, name, q)["tx_packets"] for q in range(8))


def congest_config(headroom, total):
    return swlib.write_config(swlib.shaped_two_port_config(headroom, total))


# ---- A: generation, tshark, lossless with headroom, lossy drops -------------
N_LL, N_LOSSY = 500, 300
with Topo(2, "pa") as t, Switch(t, congest_config("1M", "6M")) as sw:
    warm(t)
    m0 = t.mac(0)
    ll = stream(m0, 0x60, N_LL, 1000, 3000)        # tag 24: lossless prio 3
    lossy = stream(m0, 0x00, N_LOSSY, 1000, 3001)  # tag 0: lossy prio 0
    mixed = [p for pair in zip(ll, lossy) for p in pair] + ll[N_LOSSY:]
    base = sw.stats()
    with Capture(t.host(0), "eth0", "ether proto 0x8808") as pfc_cap, \
         Capture(t.host(1), "eth0", "udp port 9") as data_cap:
        swlib.send(t.host(0), mixed)
        # Everything sent has reached the switch and left it (or was
        # dropped): the captures then wait for what the counters say left.
        # The last packets sent are lossless: once priority 3 received them
        # all, everything sent before them was received too (the host also
        # sends frames of its own, so p0's total says less).
        idle = sw.wait_idle(rx_at_least={("p0", 3): prio(base, "p0", 3)["rx_packets"] + N_LL})
        frames = pfc_cap.stop(expect=port(idle, "p0")["pfc_frames_tx"] - port(base, "p0")["pfc_frames_tx"])
        got = data_cap.stop(expect=data_tx(idle, "p1") - data_tx(base, "p1"))
        dec = swlib.tshark_fields(pfc_cap.file, ["eth.dst", "macc.opcode", "macc.cbfc.enbv",
                                                 "macc.cbfc.pause_time.c3", "macc.cbfc.pause_time.c4",
                                                 "frame.len", "_ws.expert"])
    st = sw.stop()
    seqs = sorted(int.from_bytes(bytes(p[Raw])[:4], "big") for p in got if p[UDP].sport == 3000)
    r.check(seqs == list(range(N_LL)), f"A: every lossless packet delivered, once ({len(seqs)} of {N_LL})")
    c3 = prio(st, "p0", 3)
    r.eq(c3["drops_total"], 0, "A: no lossless drops while headroom holds")
    r.check(c3["pfc_xoff_tx"] >= 1 and c3["pfc_xon_tx"] >= 1,
            f"A: switch counted XOFF ({c3['pfc_xoff_tx']}) and XON ({c3['pfc_xon_tx']}) for prio 3 on p0")
    r.check(c3["headroom_watermark"] > 0, f"A: headroom absorbed the unpaused host ({c3['headroom_watermark']} bytes)")
    r.check(len(dec) >= 2, f"A: tshark decoded {len(dec)} PFC frames leaving p0 towards the sender")
    if dec:
        first, last = dec[0], dec[-1]
        r.eq(first["eth.dst"], "01:80:c2:00:00:01", "A: PFC destination address")
        r.eq(first["macc.opcode"], "0x0101", "A: opcode 0x0101 (Class Based Flow Control)")
        r.check(int(first["macc.cbfc.enbv"], 16) & 0x08, f"A: class-enable vector has priority 3 ({first['macc.cbfc.enbv']})")
        r.eq(first["macc.cbfc.pause_time.c3"], "65535", "A: XOFF quanta for priority 3")
        r.eq(last["macc.cbfc.pause_time.c3"], "0", "A: last frame is XON (quanta 0) for priority 3")
        r.eq(first["frame.len"], "60", "A: padded to the 60-byte minimum (FCS added by the device)")
        r.check(all(not d["_ws.expert"] for d in dec), "A: no tshark expert warnings (reserved bits, address)")
    r.check(all(int(d["macc.cbfc.enbv"], 16) & ~0x18 == 0 for d in dec), "A: only lossless priorities 3/4 ever paused")
    c0 = prio(st, "p0", 0)
    lossy_got = sum(1 for p in got if p[UDP].sport == 3001)
    r.check(c0["drops"]["lossy_buffer_full"] > 0, f"A: lossy priority dropped ({c0['drops']['lossy_buffer_full']}) instead of pausing")
    r.eq(lossy_got + c0["drops"]["lossy_buffer_full"], N_LOSSY, "A: lossy delivered + counted drops = sent")
    r.eq(st["pool_in_use"], 0, "A: all mbufs returned")

# ---- B: a host that ignores pause overruns a small headroom -----------------
with Topo(2, "pb") as t, Switch(t, congest_config("8K", "1M")) as sw:
    warm(t)
    base = sw.stats()
    with Capture(t.host(1), "eth0", "udp port 9") as data_cap:
        swlib.send(t.host(0), stream(t.mac(0), 0x60, N_LL, 1000, 3000))
        idle = sw.wait_idle(rx_at_least={("p0", 3): prio(base, "p0", 3)["rx_packets"] + N_LL})
        got = data_cap.stop(expect=data_tx(idle, "p1") - data_tx(base, "p1"))
    st = sw.stop()
    c3 = prio(st, "p0", 3)
    hd = c3["drops"]["lossless_headroom_exceeded"]
    r.check(hd > 0 and c3["pfc_xoff_tx"] >= 1, f"B: XOFF sent ({c3['pfc_xoff_tx']}) and headroom overrun counted ({hd})")
    r.eq(len(got) + hd, N_LL, "B: delivered + lossless_headroom_exceeded = sent (nothing silent)")
    r.eq(c3["drops_total"], hd, "B: no other drop reason")

# ---- C: response to received PFC at the port's speed ------------------------
cfg_c = swlib.write_config(swlib.two_port_config().replace("speed: 10G", "speed: 100M")
                           .replace("unmatched: lossy", "unmatched: keep")
                           .replace("- { tag: 24, in: [p0], out: [p1], new_tag: 26, priority: 10 }", ""))
PAUSE_S = 0xffff * 512 / 100e6    # 0.3355 s at 100 Mb/s
with Topo(2, "pc") as t, Switch(t, cfg_c) as sw:
    warm(t)
    m0, m1 = t.mac(0), t.mac(1)
    data = [p for pair in zip(stream(m0, 0x60, 10, 200, 4003), stream(m0, 0x68, 10, 200, 4004)) for p in pair]

    def run(pfcs):
        """h1 sends pfcs[0]; as soon as it is on the wire h0 sends the data;
        then h1 sends pfcs[1] (an XON), if given, as soon as the data left
        h0. Every sender is started (scapy loaded) beforehand, so each step
        follows the event it waits for by milliseconds (the switch takes the
        pause frame before it transmits data that arrived after it: a poll
        round receives on every port before it transmits). Returns
        the PFC times, and per priority the send (h0) and arrival (h1) times,
        all from captures on this host's one clock."""
        with contextlib.ExitStack() as stack:
            cap = stack.enter_context(Capture(t.host(1), "eth0", "ether proto 0x8808 or udp port 9",
                                              direction="inout"))
            sent_cap = stack.enter_context(Capture(t.host(0), "eth0", "udp port 9", direction="out"))
            pfc_tx = [stack.enter_context(Sender(t.host(1), [f])) for f in pfcs]
            data_tx = stack.enter_context(Sender(t.host(0), data, inter=0.005))
            pfc_tx[0].fire()
            pfc_tx[0].wait_sent()
            data_tx.fire()
            data_tx.wait_sent()
            for tx in pfc_tx[1:]:
                tx.fire()
                tx.wait_sent()
            # All data arrives once the pause ends (expiry or XON).
            pk = cap.stop(expect=len(pfcs) + len(data), timeout=PAUSE_S + 10)
            sent = sent_cap.stop(expect=len(data))
        tp = sorted(float(p.time) for p in pk if p.haslayer(Ether) and p[Ether].type == 0x8808)
        arr, snd = {3: [], 4: []}, {3: [], 4: []}
        for lst, src in ((arr, pk), (snd, sent)):
            for p in src:
                if p.haslayer(UDP):
                    lst[3 if p[IP].tos >> 2 == 24 else 4].append(float(p.time))
        return tp, snd, arr

    def trial(pfcs, valid, check):
        """Runs until the data really was sent inside the pause window (a
        machine loaded enough to stall a sender for a third of a second can
        still miss it), at most three times."""
        for attempt in range(3):
            tp, snd, arr = run(pfcs)
            if len(tp) == len(pfcs) and snd[3] and valid(tp, min(snd[3])):
                return check(tp, snd, arr)
            print(f"   (attempt {attempt + 1}: data not sent inside the pause window, retrying)")
        r.check(False, "C: could not line up the data with the pause frames in 3 attempts")

    def check_xoff(tp, snd, arr):
        r.eq((len(arr[3]), len(arr[4])), (10, 10), "C: all packets of both priorities delivered")
        lag4 = max(a - s for a, s in zip(sorted(arr[4]), sorted(snd[4])))
        r.check(lag4 < 0.1, f"C: priority 4 kept flowing (worst send-to-arrival {lag4 * 1e3:.1f} ms)")
        first3 = min(arr[3]) - tp[0]
        r.check(0.9 * PAUSE_S <= first3 <= PAUSE_S + 0.15,
                f"C: priority 3 held for quanta 0xffff x 512 bit / 100 Mb/s = {PAUSE_S:.3f} s "
                f"(first at +{first3:.3f} s)")

    def check_xon(tp, snd, arr):
        resume = min(arr[3]) - tp[1]
        r.check(-0.005 <= resume <= 0.15 and tp[1] - tp[0] < 0.9 * PAUSE_S,
                f"C: XON {tp[1] - tp[0]:.3f} s after XOFF resumed priority 3 early (+{resume:.3f} s after XON)")

    xoff = swlib.pfc_frame(m1, 1 << 3, [0, 0, 0, 0xffff, 0, 0, 0, 0])
    trial([xoff], lambda tp, s3: tp[0] < s3 < tp[0] + 0.5 * PAUSE_S, check_xoff)
    xon = swlib.pfc_frame(m1, 1 << 3, [0] * 8)
    trial([xoff, xon], lambda tp, s3: tp[0] < s3 < tp[1], check_xon)
    def check_pause(tp, snd, arr):
        firsts = [min(arr[q]) - tp[0] for q in (3, 4)]
        r.check(all(0.9 * PAUSE_S <= f <= PAUSE_S + 0.15 for f in firsts),
                f"C: 802.3x PAUSE held every priority (first prio 3/4 at +{firsts[0]:.3f}/+{firsts[1]:.3f} s)")
    trial([swlib.pause_frame(m1, 0xffff)],
          lambda tp, s3: tp[0] < s3 < tp[0] + 0.5 * PAUSE_S, check_pause)
    bad = [swlib.pfc_frame(m1, 1 << 3, [0xffff] * 8, opcode=0x0102),
           swlib.pfc_frame(m1, 1 << 3, [0xffff] * 8, dst="01:80:c2:00:00:02")]
    swlib.send(t.host(1), bad)
    wait_until(lambda: prio(sw.stats(), "p1", 0)["drops"]["pfc_malformed"] >= 2, 10,
               "both malformed MAC control frames counted")
    st = sw.stop()
    c3 = prio(st, "p1", 3)
    # Two XOFF and one XON per successful pair of trials (more on retries).
    r.check(c3["pfc_xoff_rx"] >= 2 and c3["pfc_xon_rx"] >= 1 and c3["pfc_xoff_rx"] > c3["pfc_xon_rx"],
            f"C: p1 prio 3 XOFF/XON received counters ({c3['pfc_xoff_rx']}/{c3['pfc_xon_rx']})")
    r.check(c3["paused_ns"] > 0.9 * PAUSE_S * 1e9, f"C: time paused counted ({c3['paused_ns'] / 1e9:.3f} s)")
    r.eq(prio(st, "p1", 0)["drops"]["pfc_malformed"], 2, "C: malformed MAC control frames counted, not honoured")
    r.check(st["ports"][1]["pause_8023x_rx"] >= 1, "C: 802.3x PAUSE counted")
    r.eq(sum(p["pfc_frames_rx"] for p in st["ports"]), c3["pfc_xoff_rx"] - st["ports"][1]["pause_8023x_rx"]
         + c3["pfc_xon_rx"], "C: PFC frames consumed (never forwarded)")
r.done()
