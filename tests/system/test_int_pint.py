#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: HPCC-PINT on the real pfcswitch between two hosts (veth
pairs in namespaces, net_af_packet ports). A sender's RoCEv2-port UDP
packets carry a 6-byte PINT trailer after their IPv4 datagram with power 0
(what an HPCC-PINT NIC sends); the switch, with int.pint, writes its port's
utilisation into it as the packet leaves. tshark with
tools/wireshark/int.lua reads the power from a capture on the far host.

The expected power is worked by hand from the simulator's formula
(net/pint.h): with packets spaced by more than int.pint.rtt (T = 1 us),
the utilisation a packet carries is the last packet's bytes over what the
port sends in T: 112 B / (10 Gb/s x 1 us) = 0.0896, encoded as
log_1.05(0.0896 x 512) = 78.4, so 78 or 79 after the random rounding (the
fixed-point logarithms move it by less than one). The first packet finds
no last packet: 0. Packets of a class without INT keep their power 0."""
import struct

from scapy.all import IP, UDP, Ether, Raw

import swlib
from swlib import Capture, Results, Switch, Topo, ns, prio

r = Results()
SW0 = "02:00:00:00:01:01"
N, M = 20, 10
PINT_TRAILER = struct.pack("!HBBH", 0x494E, 5, 0, 0)  # magic, kind 5 (PINT), 0, power 0

cfg = swlib.two_port_config() + \
    "int: { priorities: [4], pint: { log_base: 1.05, rtt: 1us }, seed: 3 }\n"
with Topo(2, "tp") as t, Switch(t, swlib.write_config(cfg)) as sw:
    for h, gw in ((0, "10.0.1.1"), (1, "10.0.2.1")):
        ns(t.host(h), ["ping", "-c", "1", "-W", "2", gw], check=False)
    h0mac = t.mac(0)

    def udp(tos, n):
        return [Ether(src=h0mac, dst=SW0) / IP(src="10.0.1.2", dst="10.0.2.2", tos=tos, ttl=20) /
                UDP(sport=49152 + i, dport=4791) / Raw(b"x" * 64) / Raw(PINT_TRAILER)
                for i in range(n)]

    # scapy computes the IP and UDP lengths over the trailer too: cut them
    # back to the datagram, as a NIC writes them.
    def datagram_lengths(pkts):
        for p in pkts:
            p[IP].len = 20 + 8 + 64
            p[UDP].len = 8 + 64
        return pkts

    with Capture(t.host(1), "eth0", "udp and dst port 4791") as cap:
        # 2 ms apart: the formula's dt is the switch's own time between two
        # packets, and a switch that takes two in one burst (it was off the
        # CPU while both arrived) sees them closer than T and adds the first
        # to the second's utilisation (92 and 101 on a loaded machine).
        swlib.send(t.host(0), datagram_lengths(udp(0x60, N)), inter=0.002)  # DSCP 24 -> 26: priority 4, INT
        swlib.send(t.host(0), datagram_lengths(udp(0x28, M)))  # DSCP 10: priority 0, no INT
        got = cap.stop(expect=N + M)
        fields = swlib.tshark_fields(cap.file, ["ip.dsfield.dscp", "int.kind", "int.pint.power", "udp.length"],
                                     "int", lua="int.lua")
    final = sw.stop()

r.eq(len(got), N + M, "every packet reached the far host")
r.check(all(len(p) == 14 + 20 + 8 + 64 + 6 for p in got), "each still carries its 6-byte trailer")
r.eq(len(fields), N + M, "tshark with int.lua finds a PINT trailer in every packet")
r.check(all(f["int.kind"] == "5" and f["udp.length"] == "72" for f in fields),
        "kind 5 (PINT), UDP length untouched (the trailer is outside the datagram)")
pint = [int(f["int.pint.power"]) for f in fields if f["ip.dsfield.dscp"] == "26"]
other = [int(f["int.pint.power"]) for f in fields if f["ip.dsfield.dscp"] != "26"]
r.eq(len(pint), N, "the INT class's packets (DSCP 26)")
r.eq(pint[0], 0, "the first packet: the port had sent nothing before it, power 0")
# The switch's dt is its own time between two packets: one that was off
# the CPU while two arrived (a loaded machine) takes both in one burst and
# sends them back to back, and the second carries the first's bytes too. So
# the far host's capture says which were spaced: a packet that arrived at
# least 0.5 ms after the one before it (they were sent 2 ms apart) left the
# switch apart from it and must carry 78 or 79; a burst's later packets
# carry more, never less.
times = [float(p.time) for p in got if IP in p and p[IP].tos >> 2 == 26]
r.eq(len(times), N, "the capture's INT-class packets, in order")
spaced = [pw for pw, t0, t1 in zip(pint[1:], times, times[1:]) if t1 - t0 >= 0.0005]
r.check(len(spaced) >= N // 2,
        f"most later packets left the switch apart from the one before ({len(spaced)} of {N - 1})")
r.check(all(p in (78, 79) for p in spaced),
        f"every spaced one: the port's utilisation 0.0896 as power 78 or 79 (got {sorted(set(spaced))})")
r.check(all(p >= 78 for p in pint[1:]),
        f"a packet sent on in a burst carries more, never less (got {sorted(set(pint[1:]))})")
r.check(all(p == 0 for p in other), "the other class's packets keep power 0")
r.eq(prio(final, "p1", 4)["int_pint"], N, "int_pint counted on p1 priority 4")
r.eq(prio(final, "p1", 4)["int_pint_unset"], 0, "int_pint_unset: none, the switch has int.pint")
r.eq(prio(final, "p1", 4)["int_hops"], 0, "no hop record pushed into a PINT trailer")
r.done()
