#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: in-band network telemetry on the real pfcswitch between two
hosts (veth pairs in namespaces, net_af_packet ports). RoCEv2-port UDP
packets of a class with INT (int.priorities) leave the switch with a
trailer after their IPv4 datagram holding one hop record; tshark with
tools/wireshark/int.lua (the decoder a user runs) reads the records from a
capture on the far host: kind, hop count, units, the port's line rate and
queue. The far host's own UDP socket gets every datagram with its payload
intact (the kernel trims the frame to the datagram: a RoCEv2 receiver never
sees the trailer), and packets of another class carry none."""
import subprocess
import sys

from scapy.all import IP, UDP, Ether, Raw

import swlib
from swlib import Capture, Results, Switch, Topo, ns, prio

r = Results()
SW0 = "02:00:00:00:01:01"
N, M = 20, 10
# Counts the datagrams that arrive on UDP 4791 with exactly the payload sent.
RECEIVER = """
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 4791)); s.settimeout(8)
print("ready", flush=True)
n = 0
try:
    while n < int(sys.argv[1]):
        d = s.recv(4096)
        n += d == b"x" * 64
except socket.timeout:
    pass
print(n, flush=True)
"""

cfg = swlib.two_port_config() + "int: { priorities: [4], multi: 2 }\n"
with Topo(2, "ti") as t, Switch(t, swlib.write_config(cfg)) as sw:
    for h, gw in ((0, "10.0.1.1"), (1, "10.0.2.1")):
        ns(t.host(h), ["ping", "-c", "1", "-W", "2", gw], check=False)
    h0mac = t.mac(0)

    def udp(tos, n):
        return [Ether(src=h0mac, dst=SW0) / IP(src="10.0.1.2", dst="10.0.2.2", tos=tos, ttl=20) /
                UDP(sport=49152 + i, dport=4791) / Raw(b"x" * 64) for i in range(n)]

    rx = subprocess.Popen(["ip", "netns", "exec", t.host(1), sys.executable, "-c", RECEIVER, str(N + M)],
                          stdout=subprocess.PIPE, text=True)
    r.eq(rx.stdout.readline().strip(), "ready", "the far host's UDP socket is listening")
    with Capture(t.host(1), "eth0", "udp and dst port 4791") as cap:
        swlib.send(t.host(0), udp(0x60, N))   # DSCP 24 -> rewritten 26: priority 4, INT
        swlib.send(t.host(0), udp(0x28, M))   # DSCP 10 -> lossy tag 0: priority 0, no INT
        got = cap.stop(expect=N + M)
        fields = swlib.tshark_fields(cap.file, ["int.kind", "int.nhop", "int.multi", "int.hop.rate_bps",
                                                "int.hop.qlen_bytes", "udp.length"], "int", lua="int.lua")
    rx_out, _ = rx.communicate(timeout=20)
    live = sw.stats()
    final = sw.stop()

r.eq(len(got), N + M, "every packet reached the far host")
with_int = [p for p in got if len(p) == 14 + 20 + 8 + 64 + 46]
r.eq(len(with_int), N, "the INT class's frames carry a 46-byte trailer after the datagram")
r.check(all(p[IP].tos >> 2 == 26 for p in with_int), "... and they are the INT class (DSCP 26)")
r.eq(len(fields), N, "tshark with int.lua finds a trailer in each of them, none in the other class")
r.check(all(f["int.kind"] == "1" and f["int.nhop"] == "1" and f["int.multi"] == "2" for f in fields),
        "kind hop records, one hop pushed, unit multiplier 2 (int.multi)")
r.check(all(f["int.hop.rate_bps"] == "10000000000" for f in fields), "the record names p1's line rate, 10G")
r.check(all(f["int.hop.qlen_bytes"].isdigit() and int(f["int.hop.qlen_bytes"]) % 160 == 0 for f in fields),
        "queue length in units of 80 x multi bytes")
r.check(all(f["udp.length"] == "72" for f in fields),
        "UDP length untouched (8 + 64): the trailer is outside it")
r.eq(int(rx_out.split()[-1]), N + M, "the far host's socket got every datagram with its 64-byte payload")
r.eq(prio(final, "p1", 4)["int_hops"], N, "int_hops counted on p1 priority 4")
r.eq(prio(final, "p1", 4)["int_inserted"], N, "int_inserted: the switch added each trailer")
r.eq(prio(final, "p1", 0)["int_hops"], 0, "no record on priority 0")
r.eq(prio(live, "p1", 4)["int_no_room"], 0, "no packet went without for lack of room")
r.done()
