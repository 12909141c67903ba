#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: 802.1Q frames through the real switch (veth pairs in network
namespaces, net_af_packet ports, scapy and tcpdump). The switch classifies by
DSCP; a tagged frame keeps its tag (VID, DEI) and leaves with the PCP of the
priority it was queued at, so after the Tagger rewrite 24 -> 26 the far side
sees DSCP 26 and PCP 4 (tag 26's priority), never the old PCP. Priority-tagged
frames (VID 0) alike; a lossy frame leaves with the lossy priority's PCP; an
untagged frame stays untagged; stacked tags (QinQ, 802.1ad) are dropped as
vlan_unsupported; a tagged ARP request for the gateway is answered tagged."""
from scapy.all import ARP, IP, UDP, Dot1AD, Dot1Q, Ether, Raw

import swlib
from swlib import Capture, Results, Switch, Topo, ns, port, prio

r = Results()
SW0, SW1 = "02:00:00:00:01:01", "02:00:00:00:02:01"

with Topo(2, "vl") as t, Switch(t, swlib.write_config(swlib.two_port_config())) as sw:
    # Untagged pings teach the switch both hosts' MACs (and the hosts the
    # switch's); the switch keeps no per-VLAN state.
    for h, gw in ((0, "10.0.1.1"), (1, "10.0.2.1")):
        res = ns(t.host(h), ["ping", "-c", "1", "-W", "2", gw], check=False)
        r.check(res.returncode == 0, f"host {h} pings its gateway {gw}")
    h0, h1 = t.mac(0), t.mac(1)

    def udp(sport, tos, n, tag=None):
        """n UDP packets to host 1; tag = (layers...) put between Ether and IP."""
        out = []
        for i in range(n):
            p = IP(src="10.0.1.2", dst="10.0.2.2", tos=tos, ttl=20) / UDP(sport=sport, dport=6000 + i) / Raw(b"v" * 40)
            for layer in reversed(tag or []):
                p = layer / p
            out.append(Ether(src=h0, dst=SW0) / p)
        return out

    sends = (udp(2024, 0x60 | 1, 6, [Dot1Q(vlan=10, prio=3, id=1)])  # DSCP 24 (ECN 1), PCP 3, DEI 1
             + udp(2000, 0x60, 5, [Dot1Q(vlan=0, prio=0)])           # priority tag, DSCP 24
             + udp(2046, 0xb8, 5, [Dot1Q(vlan=10, prio=5)])          # DSCP 46: unmapped -> lossy
             + udp(2099, 0x60, 5)                                    # untagged DSCP 24
             + udp(2100, 0x60, 3, [Dot1Q(vlan=20, prio=3), Dot1Q(vlan=10, prio=3)])   # QinQ
             + udp(2101, 0x60, 3, [Dot1AD(vlan=20, prio=3), Dot1Q(vlan=10, prio=3)]))  # 802.1ad
    with Capture(t.host(1), "eth0", "udp or (vlan and udp) or (vlan and vlan and udp)") as cap:
        swlib.send(t.host(0), sends)
        got = cap.stop()

    by_sport = {}
    for p in got:
        if p.haslayer(UDP):
            by_sport.setdefault(p[UDP].sport, []).append(p)

    def tags(pkts):
        return [(p[Dot1Q].vlan, p[Dot1Q].prio, p[Dot1Q].id) if p.haslayer(Dot1Q) else None for p in pkts]

    def dscps(pkts):
        return sorted({p[IP].tos for p in pkts})

    a = by_sport.get(2024, [])
    r.eq(len(a), 6, "tagged DSCP 24 packets delivered")
    r.eq(sorted(set(tags(a))), [(10, 4, 1)], "VID 10 and DEI kept, PCP 3 -> 4: the priority of the new tag 26")
    r.eq(dscps(a), [26 << 2 | 1], "DSCP rewritten 24 -> 26, ECN kept")
    r.check(all(p[IP].ttl == 19 and p[Ether].src == SW1 and p[Ether].dst == h1 for p in a),
            "routed: TTL - 1, MACs of the hop")
    b = by_sport.get(2000, [])
    r.eq(len(b), 5, "priority-tagged packets delivered")
    r.eq(sorted(set(tags(b))), [(0, 4, 0)], "priority tag (VID 0) kept, PCP 0 -> 4")
    r.eq(dscps(b), [26 << 2], "priority-tagged: DSCP 24 -> 26")
    c = by_sport.get(2046, [])
    r.eq(len(c), 5, "unmapped-tag tagged packets delivered (lossy)")
    r.eq(sorted(set(tags(c))), [(10, 0, 0)], "lossy: PCP 5 -> 0, the lossy priority it was queued at")
    r.eq(dscps(c), [0], "lossy: DSCP -> lossy tag 0")
    d = by_sport.get(2099, [])
    r.eq(len(d), 5, "untagged packets delivered")
    r.eq(tags(d), [None] * 5, "untagged stays untagged")
    r.eq(len(by_sport.get(2100, [])) + len(by_sport.get(2101, [])), 0, "stacked tags not forwarded")

    # A tagged ARP request for the gateway is answered in the same VLAN.
    req = Ether(src=h0, dst="ff:ff:ff:ff:ff:ff") / Dot1Q(vlan=10, prio=2) / \
        ARP(op=1, hwsrc=h0, psrc="10.0.1.2", pdst="10.0.1.1")
    with Capture(t.host(0), "eth0", "vlan and arp") as cap:
        swlib.send(t.host(0), [req])
        arp = cap.stop()
    replies = [p for p in arp if p.haslayer(ARP) and p[ARP].op == 2]
    r.eq(len(replies), 1, "tagged ARP request answered")
    r.check(all(p.haslayer(Dot1Q) and p[Dot1Q].vlan == 10 and p[Dot1Q].prio == 2 and
                p[ARP].hwsrc == SW0 and p[ARP].psrc == "10.0.1.1" and p[ARP].pdst == "10.0.1.2"
                for p in replies), "ARP reply carries the request's tag (VID 10, PCP 2) and the switch's MAC")

    st = sw.stats()
    # PCP changed: the 6 tagged (3 -> 4), 5 priority-tagged (0 -> 4) and 5 lossy (5 -> 0).
    r.eq(port(st, "p0")["pcp_rewrites"], 6 + 5 + 5, "pcp_rewrites counts the tagged frames whose PCP changed")
    r.eq(prio(st, "p0", 0)["drops"]["vlan_unsupported"], 6, "QinQ and 802.1ad counted as vlan_unsupported")
    r.eq(prio(st, "p1", 4)["tx_packets"], 6 + 5 + 5, "tag 26 (tagged, priority-tagged, untagged) sent at priority 4")
    final = sw.stop()
r.eq(final["pool_in_use"], 0, "all mbufs returned")
r.done()
