#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: the real pfcswitch between two hosts (veth pairs in network
namespaces, net_af_packet ports). Checks L3 forwarding (ARP, TTL, MACs), the
Tagger DSCP rewrite seen in a capture on the far side, lossy fallback for a
tag with no mapping, the lossy tag for a mapped tag with no rule, no-route
drops, ICMP to the gateway, and the counters through pfcctl, DPDK's own
dpdk-telemetry.py and the exit report."""
import subprocess

from scapy.all import IP, UDP, Ether, Raw

import swlib
from swlib import Capture, Results, Switch, Topo, ns, prio, port

r = Results()
SW0, SW1 = "02:00:00:00:01:01", "02:00:00:00:02:01"

with Topo(2, "tf") as t, Switch(t, swlib.write_config(swlib.two_port_config())) as sw:
    # Hosts resolve their gateway (the switch answers ARP), which also
    # teaches the switch both hosts' MACs.
    for h, gw in ((0, "10.0.1.1"), (1, "10.0.2.1")):
        res = ns(t.host(h), ["ping", "-c", "2", "-i", "0.2", "-W", "2", gw], check=False)
        r.check(res.returncode == 0, f"host {h} pings its gateway {gw} (ICMP echo answered by the switch)")
    neigh = ns(t.host(0), ["ip", "neigh", "show", "10.0.1.1"]).stdout
    r.check(SW0 in neigh, f"host 0 learnt the switch MAC by ARP ({neigh.strip()})")

    h0mac, h1mac = t.mac(0), t.mac(1)
    def udp(tos, n, dst="10.0.2.2", sport=1000):
        return [Ether(src=h0mac, dst=SW0) / IP(src="10.0.1.2", dst=dst, tos=tos, ttl=20) /
                UDP(sport=sport, dport=5000 + i) / Raw(b"x" * 64) for i in range(n)]

    with Capture(t.host(1), "eth0", "udp and dst host 10.0.2.2") as cap:
        swlib.send(t.host(0), udp(0x60, 20, sport=1024))   # DSCP 24: rule 24 -> 26
        swlib.send(t.host(0), udp(0x28, 10, sport=1010))   # DSCP 10: mapped (prio 1), no rule -> lossy tag 0
        swlib.send(t.host(0), udp(0xb8, 10, sport=1046))   # DSCP 46: unmapped -> lossy priority, tag 0
        swlib.send(t.host(0), udp(0x60, 5, dst="192.168.99.1"))   # no route
        got = cap.stop()

    by_sport = {}
    for p in got:
        by_sport.setdefault(p[UDP].sport, []).append(p)
    r.eq(len(by_sport.get(1024, [])), 20, "DSCP 24 packets delivered")
    r.check(all(p[IP].tos >> 2 == 26 for p in by_sport.get(1024, [])), "DSCP 24 rewritten to 26 on the far side")
    r.check(all(p[IP].ttl == 19 for p in got), "TTL decremented by one")
    r.check(all(p[Ether].src == SW1 and p[Ether].dst == h1mac for p in got), "MACs rewritten to switch p1 -> host 1")
    r.eq(len(by_sport.get(1010, [])), 10, "DSCP 10 packets delivered")
    r.check(all(p[IP].tos >> 2 == 0 for p in by_sport.get(1010, [])), "mapped tag with no rule -> lossy tag 0")
    r.eq(len(by_sport.get(1046, [])), 10, "unmapped DSCP 46 packets delivered (lossy)")
    r.check(all(p[IP].tos >> 2 == 0 for p in by_sport.get(1046, [])), "unmapped tag -> lossy tag 0")
    r.check(not any(p[IP].dst == "192.168.99.1" for p in got), "no-route packets not delivered (never flooded)")

    live = sw.stats()
    r.eq(prio(live, "p0", 3)["rx_packets"], 25, "p0 prio 3 rx: 20 routed + 5 no-route, all tag 24")
    r.eq(prio(live, "p0", 3)["rewrites"], 20, "p0 prio 3 rewrites")
    r.eq(prio(live, "p1", 4)["tx_packets"], 20, "p1 prio 4 tx: queued by the NEW tag 26 (Tagger Fig. 8b)")
    r.eq(prio(live, "p0", 1)["to_lossy_tag"], 10, "p0 prio 1 rewritten to the lossy tag")
    r.eq(prio(live, "p0", 0)["lossy_fallback"], 12, "p0 prio 0 lossy fallback: 10 DSCP 46 + 2 pings (DSCP 0)")
    r.eq(prio(live, "p0", 3)["drops"]["no_route"], 5, "no_route drops counted")
    r.eq(prio(live, "p1", 0)["tx_packets"], 20, "p1 prio 0 tx: both lossy-tag streams")

    # DPDK's own client reads the same telemetry.
    tel = subprocess.run(["ip", "netns", "exec", t.sw, "dpdk-telemetry.py", "-f", sw.prefix],
                         input="/pfcswitch/info\n", capture_output=True, text=True, timeout=20)
    r.check('"rules": 2' in tel.stdout and '"ports": 2' in tel.stdout,
            "dpdk-telemetry.py reads /pfcswitch/info")
    final = sw.stop()

r.eq(prio(final, "p1", 4)["tx_packets"], 20, "exit report agrees with telemetry")
r.eq(final["pool_in_use"], 0, "every mbuf back in the pool at exit")
r.eq(port(final, "p0")["arp_reply_tx"] >= 1, True, "switch answered ARP on p0")
r.done()
