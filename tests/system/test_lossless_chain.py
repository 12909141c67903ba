#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: two pfcswitch processes wired port to port, a 2-to-1 incast
into a shaped bottleneck. PFC must propagate hop by hop (S2 pauses S1, S1
pauses the senders), every lossless packet must arrive (sequence numbers
checked per sender), the inter-switch hop must not drop anything lossless
with its default (auto) headroom, and a lossy priority sharing the same ports
drops instead, every drop counted.

  h0 --\\                                      (shaped 20 Mb/s)
        S1 [a0 a1 | a2] ==== [b0 | b1] S2 ---------------- h2
  h1 --/
The senders are veth hosts that ignore pause, so S1's host-facing priority
groups get a large headroom; S2 uses the computed one. The S1-S2 link is
emulated at 100 Mb/s (S1 shapes it) so that the bytes in flight during the
two software switches' reaction time are bounded, as a real link's are."""
import json
import os
import subprocess

from scapy.all import IP, UDP, Ether, Raw

import swlib
from swlib import Capture, Results, sh, prio

P = os.environ.get("CHAIN_PREFIX", "lc")
N = int(os.environ.get("CHAIN_PACKETS", "400"))      # lossless packets per sender
NL = int(os.environ.get("CHAIN_LOSSY", "200"))       # lossy packets per sender
RESPONSE_NS = int(os.environ.get("CHAIN_RESPONSE_NS", "10000000"))
# The hosts ignore pause: S1's host-facing groups must hold all they send.
S1_HEADROOM = (N + NL) * 1100
r = Results()
S1MAC = {"a0": "02:00:00:00:a1:00", "a1": "02:00:00:00:a1:01", "a2": "02:00:00:00:a1:02"}
S2MAC = {"b0": "02:00:00:00:b2:00", "b1": "02:00:00:00:b2:01"}

S1 = f"""
switch: {{ idle_sleep_us: 20 }}
ports:
  - {{ name: a0, device: net_af_packet0, ipv4: 10.0.1.1/24, speed: 1G, mac: "{S1MAC['a0']}" }}
  - {{ name: a1, device: net_af_packet1, ipv4: 10.0.2.1/24, speed: 1G, mac: "{S1MAC['a1']}" }}
  - {{ name: a2, device: net_af_packet2, ipv4: 10.0.100.1/30, speed: 100M, shaper: 100M, mac: "{S1MAC['a2']}" }}
routes: [ {{ prefix: 10.0.3.0/24, port: a2, via: 10.0.100.2 }} ]
neighbors: [ {{ ip: 10.0.100.2, mac: "{S2MAC['b0']}", port: a2 }} ]
qos: {{ tag_map: {{ 24: 3 }}, lossless: [3], lossy_priority: 0, lossy_tag: 0 }}
buffer:
  total_bytes: {3 * S1_HEADROOM + (1 << 20)}
  cell_bytes: 256
  lossy: {{ limit: 64K }}
  lossless: {{ reserved: 0, xoff: 32K, headroom: {S1_HEADROOM} }}   # senders ignore pause
rewrite: {{ unmatched: keep }}
"""
S2 = f"""
switch: {{ idle_sleep_us: 20 }}
ports:
  - {{ name: b0, device: net_af_packet0, ipv4: 10.0.100.2/30, speed: 100M, mac: "{S2MAC['b0']}" }}
  - {{ name: b1, device: net_af_packet1, ipv4: 10.0.3.1/24, speed: 1G, shaper: 20M, mac: "{S2MAC['b1']}" }}
routes:
  - {{ prefix: 10.0.1.0/24, port: b0, via: 10.0.100.1 }}
  - {{ prefix: 10.0.2.0/24, port: b0, via: 10.0.100.1 }}
neighbors: [ {{ ip: 10.0.100.1, mac: "{S1MAC['a2']}", port: b0 }} ]
qos: {{ tag_map: {{ 24: 3 }}, lossless: [3], lossy_priority: 0, lossy_tag: 0 }}
# Both ends are software processes sharing 2 cores with the senders: an OS
# time slice (up to ~10 ms under load) at each end is their response time.
pfc: {{ response_ns: {RESPONSE_NS} }}
buffer:
  total_bytes: 8M
  cell_bytes: 256
  lossy: {{ limit: 64K }}
  # Full 1,042-byte frames only: the automatic headroom needs no cell tax
  # for small ones (buffer.lossless.small_packets), which here, at 1G with
  # 10 ms of response and 256-byte cells, would leave the lossy class no
  # shared room for the hosts' own chatter.
  lossless: {{ reserved: 0, xoff: 32K, headroom: auto, small_packets: 0 }}
rewrite: {{ unmatched: keep }}
"""


def ip(*a):
    sh(["ip", *a])


class Chain:
    def __enter__(self):
        try:
            return self.up()
        except BaseException:
            self.__exit__()   # a switch that did not start must not outlive the test
            raise

    def up(self):
        self.down()
        for n in ("sw1", "sw2", "h0", "h1", "h2"):
            swlib.netns_add(P + n)
            ip("-n", P + n, "link", "set", "lo", "up")
        links = [("h0", "eth0", "sw1", "a0"), ("h1", "eth0", "sw1", "a1"), ("sw1", "a2", "sw2", "b0"),
                 ("sw2", "b1", "h2", "eth0")]
        for n1, d1, n2, d2 in links:
            tmp1, tmp2 = P + "t" + d1 + n1, P + "t" + d2 + n2
            ip("link", "add", tmp1, "type", "veth", "peer", "name", tmp2)
            for tmp, n, d in ((tmp1, n1, d1), (tmp2, n2, d2)):
                ip("link", "set", tmp, "netns", P + n)
                ip("-n", P + n, "link", "set", tmp, "name", d)
                sh(["ip", "netns", "exec", P + n, "ethtool", "-K", d, "tx", "off", "tso", "off", "gso", "off",
                    "gro", "off", "rx", "off"], check=False)
                ip("-n", P + n, "link", "set", d, "up")
        for h, net in (("h0", 1), ("h1", 2), ("h2", 3)):
            ip("-n", P + h, "addr", "add", f"10.0.{net}.2/24", "dev", "eth0")
            ip("-n", P + h, "route", "add", "default", "via", f"10.0.{net}.1")
        self.sw = []
        for name, cfg, ifs, lcores in (("sw1", S1, ["a0", "a1", "a2"], "0,1"), ("sw2", S2, ["b0", "b1"], "1,0")):
            vdev = sum([["--vdev", f"net_af_packet{i},iface={d},framecnt=4096"] for i, d in enumerate(ifs)], [])
            log = open(swlib.run_file(P + name, ".log"), "w+")
            cmd = ["ip", "netns", "exec", P + name, swlib.SWITCH, "-l", lcores, "--main-lcore", lcores[0],
                   "--no-huge", "--no-pci", "--no-shconf", "-m", "768" if name == "sw1" else "256", "--file-prefix", P + name,
                   "--log-level=lib.eal:error", *vdev, "--", "--config", swlib.write_config(cfg),
                   "--stats-json", "-"]
            self.sw.append((subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT), log))
        for proc, log in self.sw:
            def ready():
                log.seek(0)
                out = log.read()
                if proc.poll() is not None and "pfcswitch: forwarding" not in out:
                    raise RuntimeError("switch did not start:\n" + out)
                return "pfcswitch: forwarding" in out
            swlib.wait_until(ready, 30, "both switches to print 'pfcswitch: forwarding'")
        return self

    def ctl(self, name, *args):
        """pfcctl's output for sw1 or sw2."""
        return sh([swlib.PFCCTL, "--file-prefix", P + name, *args]).stdout

    def stats(self, name):
        """Live counters of sw1 or sw2 (pfcctl stats)."""
        return json.loads(self.ctl(name, "stats"))

    def stop(self):
        stats = []
        for proc, log in self.sw:
            proc.send_signal(2)
            proc.wait(20)
            log.seek(0)
            out = log.read()
            final = swlib.final_stats(out)
            if final is None:
                raise RuntimeError("no final stats in output:\n" + out[-3000:])
            stats.append(final)
        return stats

    def down(self):
        for n in ("sw1", "sw2", "h0", "h1", "h2"):
            sh(["ip", "netns", "del", P + n], check=False)

    def __exit__(self, *a):
        for proc, log in getattr(self, "sw", []):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            log.close()
        self.down()


def stream(h, net, mac_dst, tos, n, sport):
    src = swlib.ns(P + h, ["cat", "/sys/class/net/eth0/address"]).stdout.strip()
    return [Ether(src=src, dst=mac_dst) / IP(src=f"10.0.{net}.2", dst="10.0.3.2", tos=tos) /
            UDP(sport=sport, dport=9) / Raw(i.to_bytes(4, "big") + bytes(996)) for i in range(n)]


with Chain() as c:
    for h, net in (("h0", 1), ("h1", 2), ("h2", 3)):
        swlib.ns(P + h, ["ping", "-c", "1", "-W", "2", f"10.0.{net}.1"], check=False)
    flows = {}
    for h, net, port in (("h0", 1, "a0"), ("h1", 2, "a1")):
        ll = stream(h, net, S1MAC[port], 0x60, N, 5000 + net)
        lossy = stream(h, net, S1MAC[port], 0x00, NL, 6000 + net)
        flows[h] = [p for pair in zip(ll, lossy) for p in pair] + ll[NL:]
    b1 = [prio(c.stats("sw2"), "b1", q)["tx_packets"] for q in (0, 3)]
    a_rx = {p: prio(c.stats("sw1"), p, 3)["rx_packets"] for p in ("a0", "a1")}
    a0_pfc = swlib.port(c.stats("sw1"), "a0")["pfc_frames_tx"]
    with Capture(P + "h2", "eth0", "udp port 9") as cap, \
         Capture(P + "h0", "eth0", "ether proto 0x8808") as pfc_h0, \
         swlib.Sender(P + "h0", flows["h0"]) as tx0, swlib.Sender(P + "h1", flows["h1"]) as tx1:
        # Both senders are loaded; start them together (an incast).
        tx0.fire()
        tx1.fire()
        tx0.wait_sent()
        tx1.wait_sent()
        # S1 got everything and drained into S2, then S2 got all S1 sent it
        # (by priority: same tag map on both) and drained to h2. Each flow
        # ends with lossless packets, so priority 3 complete = flow complete.
        s1_live = swlib.wait_idle(lambda *a: c.ctl("sw1", *a), 60,
                                  {("a0", 3): a_rx["a0"] + N, ("a1", 3): a_rx["a1"] + N})
        s2_live = swlib.wait_idle(lambda *a: c.ctl("sw2", *a), 60,
                                  {("b0", q): prio(s1_live, "a2", q)["tx_packets"] for q in (0, 3)})
        delivered = sum(prio(s2_live, "b1", q)["tx_packets"] for q in (0, 3)) - sum(b1)
        got = cap.stop(expect=delivered)
        pfc_to_h0 = len(pfc_h0.stop(expect=swlib.port(s1_live, "a0")["pfc_frames_tx"] - a0_pfc))
    s1, s2 = c.stop()

for net in (1, 2):
    seqs = sorted(int.from_bytes(bytes(p[Raw])[:4], "big") for p in got if p[UDP].sport == 5000 + net)
    r.check(seqs == list(range(N)), f"sender h{net - 1}: every lossless packet arrived once ({len(seqs)} of {N})")
s2c = prio(s2, "b0", 3)
r.eq(s2c["drops_total"], 0, "S2 (auto headroom, software peer): no lossless drops")
r.check(s2c["pfc_xoff_tx"] >= 1, f"S2 paused S1: {s2c['pfc_xoff_tx']} XOFF, {s2c['pfc_refresh_tx']} refreshes")
r.check(prio(s1, "a2", 3)["pfc_xoff_rx"] >= 1 and prio(s1, "a2", 3)["paused_ns"] > 0,
        f"S1 honoured it: priority 3 on a2 paused {prio(s1, 'a2', 3)['paused_ns'] / 1e6:.1f} ms")
r.check(prio(s1, "a0", 3)["pfc_xoff_tx"] >= 1 and pfc_to_h0 >= 1,
        f"PFC propagated hop by hop: S1 sent XOFF towards h0 ({pfc_to_h0} frames captured)")
r.eq(sum(prio(s, p["name"], 3)["drops_total"] for s in (s1, s2) for p in s["ports"]), 0,
     "no lossless drop anywhere")
lossy_got = sum(1 for p in got if p[UDP].sport in (6001, 6002))
lossy_drops = sum(prio(s, p["name"], 0)["drops"]["lossy_buffer_full"] for s in (s1, s2) for p in s["ports"])
r.check(lossy_drops > 0, f"the lossy priority on the same ports dropped instead ({lossy_drops})")
r.eq(lossy_got + lossy_drops, 2 * NL, "lossy delivered + counted drops = sent")
r.eq((s1["pool_in_use"], s2["pool_in_use"]), (0, 0), "all mbufs returned on both switches")
ll_got = sum(1 for p in got if p[UDP].sport in (5001, 5002))
print(f"RESULT lossless_sent={2 * N} lossless_delivered={ll_got} "
      f"lossless_drops={sum(prio(s, p['name'], 3)['drops_total'] for s in (s1, s2) for p in s['ports'])} "
      f"lossy_sent={2 * NL} lossy_drops={lossy_drops} s2_xoff={s2c['pfc_xoff_tx']} "
      f"s2_headroom_watermark={s2c['headroom_watermark']} s1_paused_ms={prio(s1, 'a2', 3)['paused_ns'] / 1e6:.1f}")
r.done()
