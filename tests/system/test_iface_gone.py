#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test (issue 29 item 2): an interface deleted under a running
switch. pfcswitch has three af_packet ports on veths; h0 sends to h2, then
p2's veth is deleted in the switch's namespace (as `ip link del` or a VM
going away does) and h0 keeps sending to h2 and to h1. The other ports keep
forwarding every packet; p2's counters say what happened to what was sent
to it after (dev_tx_errors: the device refused them) and that its link is
down (link_up 0, link_down_events 1, printed); the switch exits
cleanly on SIGINT afterwards with its pool full and its buffers empty."""
import time

from scapy.all import IP, UDP, Ether, Raw

import swlib
from swlib import Capture, Results, Switch, Topo, ns, port

r = Results()
N_GONE, N_LIVE = 50, 300

P1 = '  - { name: p1, device: net_af_packet1, ipv4: 10.0.2.1/24, speed: 10G, mac: "02:00:00:00:02:01"  }'
P2 = '  - { name: p2, device: net_af_packet2, ipv4: 10.0.3.1/24, speed: 10G, mac: "02:00:00:00:03:01"  }'
cfg = swlib.two_port_config()
assert P1 in cfg
cfg = cfg.replace(P1, P1 + "\n" + P2)


def udp(t, dst, n):
    return [Ether(src=t.mac(0), dst="02:00:00:00:01:01") / IP(src="10.0.1.2", dst=dst) /
            UDP(sport=21, dport=21) / Raw(i.to_bytes(4, "big") + bytes(100)) for i in range(n)]


with Topo(3, "ig") as t, Switch(t, swlib.write_config(cfg)) as sw:
    for h, gw in ((0, "10.0.1.1"), (1, "10.0.2.1"), (2, "10.0.3.1")):
        ns(t.host(h), ["ping", "-c", "1", "-W", "2", gw], check=False)
    with Capture(t.host(2), "eth0", "udp port 21") as c2:
        swlib.send(t.host(0), udp(t, "10.0.3.2", N_GONE))
        before = c2.stop()
    r.eq(len(before), N_GONE, "h2 reached through p2 before its interface goes")
    sent_before = port(sw.stats(), "p2")["tx_packets"]
    ns(t.sw, ["ip", "link", "del", t.port_if(2)])
    time.sleep(0.3)
    swlib.send(t.host(0), udp(t, "10.0.3.2", N_GONE))
    with Capture(t.host(1), "eth0", "udp port 21") as c1:
        swlib.send(t.host(0), udp(t, "10.0.2.2", N_LIVE))
        got = c1.stop()
    seqs = sorted(int.from_bytes(bytes(p[Raw])[:4], "big") for p in got)
    r.check(seqs == list(range(N_LIVE)), f"p1 keeps forwarding: every packet to h1 once ({len(seqs)})")
    r.check(sw.proc.poll() is None, "the switch still runs")
    final = sw.stop()
    r.eq(sw.proc.returncode, 0, "exit status 0 on SIGINT after the interface went")
p2 = port(final, "p2")
r.eq(p2["tx_packets"] - sent_before, N_GONE, "p2: what was routed to it after is counted as sent by the switch")
r.eq(p2["dev_tx_errors"], N_GONE, "p2: and as refused by the device (dev_tx_errors)")
r.eq(p2["link_up"], 0, "p2: its link is down (the link watch: the interface is gone)")
r.eq(p2["link_down_events"], 1, "p2: one link-down counted")
r.eq(port(final, "p1")["link_down_events"], 0, "p1: no link-down")
r.eq(port(final, "p1")["dev_tx_errors"], 0, "p1: no device error")
r.eq(final["pool_in_use"], 0, "every mbuf back in the pool")
r.eq(sum(q["buffer_bytes"] for p in final["ports"] for q in p["prio"]), 0, "buffers empty")
r.check("pfcswitch: port p2: link down" in sw.out, "pfcswitch printed p2's link going down")
r.check("Segmentation fault" not in sw.out and "PANIC" not in sw.out, "no crash in the log")
r.done()
