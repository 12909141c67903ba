#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: static L2 mode. Frames are switched by destination MAC from
the static table with the Tagger rewrite still applied to IPv4 (no TTL
change); unknown and broadcast destinations are dropped and counted, never
flooded (SIGCOMM'16 §4.2); non-IP frames (here unicast ARP) go lossy; with
`switch.hairpin: drop`, a frame that would leave by its ingress port is
dropped and counted."""
from scapy.all import ARP, IP, UDP, Ether, Raw

import swlib
from swlib import Capture, Results, Switch, Topo, prio

r = Results()
with Topo(2, "l2") as t:
    m0, m1 = t.mac(0), t.mac(1)
    cfg = f"""
switch: {{ mode: l2, hairpin: drop }}
ports:
  - {{ name: p0, device: net_af_packet0, speed: 10G }}
  - {{ name: p1, device: net_af_packet1, speed: 10G }}
l2_table:
  - {{ mac: "{m0}", port: p0 }}
  - {{ mac: "{m1}", port: p1 }}
qos: {{ tag_map: {{ 24: 3, 26: 4 }}, lossless: [3, 4] }}
rewrite:
  rules: [ {{ tag: 24, in: [p0], out: [p1], new_tag: 26 }} ]
"""
    with Switch(t, swlib.write_config(cfg)) as sw:
        ip = IP(src="10.0.1.2", dst="10.0.1.3", tos=0x60, ttl=9) / UDP(sport=31, dport=31) / Raw(bytes(30))
        pkts = [Ether(src=m0, dst=m1) / ip] * 5 + \
               [Ether(src=m0, dst="02:99:99:99:99:99") / ip] * 3 + \
               [Ether(src=m0, dst="ff:ff:ff:ff:ff:ff") / ip] * 2 + \
               [Ether(src=m0, dst=m0) / ip] * 4 + \
               [Ether(src=m0, dst=m1) / ARP(op=2, psrc="10.0.1.2", pdst="10.0.1.3", hwsrc=m0, hwdst=m1)] * 2
        with Capture(t.host(1), "eth0", "udp or arp") as cap:
            swlib.send(t.host(0), pkts)
            got = cap.stop()
        st = sw.stop()
udp = [p for p in got if p.haslayer(UDP)]
r.eq(len(udp), 5, "known unicast MAC switched to its port")
r.check(all(p[IP].tos >> 2 == 26 and p[IP].ttl == 9 for p in udp), "tag rewritten 24 -> 26, TTL untouched")
r.check(all(p[Ether].src == m0 for p in udp), "L2 mode keeps the source MAC")
r.eq(prio(st, "p0", 3)["drops"]["unknown_l2_dst"], 5, "unknown (3) and broadcast (2) destinations dropped, not flooded")
r.eq(len([p for p in got if p.haslayer(ARP)]), 2, "unicast ARP switched")
r.eq(prio(st, "p0", 3)["drops"]["hairpin"], 4, "hairpin (out port == in port) dropped with switch.hairpin: drop")
r.eq(prio(st, "p1", 0)["tx_packets"], 2, "non-IP frames on the lossy priority")
r.eq(prio(st, "p1", 4)["tx_packets"], 5, "IPv4 queued by the new tag's priority")
r.done()
