#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: malformed and unusual frames sent into the real switch. Each
kind is counted under its own reason (or forwarded and counted when legal,
like IPv4 options), and the switch keeps forwarding. IPv4 fragments are not
sent here: DPDK 22.11's net_af_packet joins a PACKET_FANOUT group with the
defrag flag, so the kernel reassembles them before the switch sees them (the
parser's fragment handling is covered by the unit and fuzz tests)."""
import struct
import time

from scapy.all import ARP, IP, UDP, Ether, IPv6, Raw

import swlib
from swlib import Capture, Results, Switch, Topo, ns, port, prio

r = Results()
SW0 = "02:00:00:00:01:01"

with Topo(2, "bp") as t, Switch(t, swlib.write_config(swlib.two_port_config())) as sw:
    for h, gw in ((0, "10.0.1.1"), (1, "10.0.2.1")):
        ns(t.host(h), ["ping", "-c", "1", "-W", "2", gw], check=False)
    m0 = t.mac(0)
    eth = Ether(src=m0, dst=SW0)
    good = IP(src="10.0.1.2", dst="10.0.2.2", tos=0x60) / UDP(sport=11, dport=11) / Raw(b"z" * 40)
    raw_good = bytes(eth / good)

    def mangle(off, val):
        b = bytearray(raw_good)
        b[off:off + len(val)] = val
        return Ether(bytes(b))

    bad_csum = mangle(14 + 10, b"\x12\x34")
    ihl4 = mangle(14, b"\x44")
    version6 = mangle(14, b"\x65")
    too_long = mangle(14 + 2, struct.pack("!H", 1400))          # total length beyond the frame
    only_eth = Ether(bytes(eth)[:12] + b"\x08\x00" + bytes(46))  # IPv4 ethertype, zero header -> bad
    options = eth / IP(src="10.0.1.2", dst="10.0.2.2", tos=0x60, options=[b"\x01\x01\x01\x00"]) / UDP(sport=12, dport=12)
    ttl1 = eth / IP(src="10.0.1.2", dst="10.0.2.2", tos=0x60, ttl=1) / UDP(sport=14, dport=14)
    unknown_type = Ether(src=m0, dst=SW0, type=0x88b5) / Raw(bytes(50))
    v6 = Ether(src=m0, dst=SW0) / IPv6(dst="fe80::1") / UDP()
    other_mac = Ether(src=m0, dst="02:11:22:33:44:55") / good
    arp_bad = Ether(src=m0, dst="ff:ff:ff:ff:ff:ff") / ARP(hwlen=8, plen=4, op=1, pdst="10.0.1.1")
    # Hardware type 6 (IEEE 802): scapy writes hlen 0, so a complete 16-byte
    # body in a 30-byte frame. Not Ethernet, but not truncated either.
    arp_802 = Ether(src=m0, dst="ff:ff:ff:ff:ff:ff") / ARP(hwtype=6, op=1, pdst="10.0.1.1")
    tagged_pfc = Ether(dst="01:80:c2:00:00:01", src=m0, type=0x8100) / Raw(b"\x00\x03\x88\x08\x01\x01\x00\x08" + bytes(40))

    sends = [bad_csum] * 3 + [ihl4] * 2 + [version6] * 2 + [too_long] * 2 + [only_eth] + [options] * 2 + \
            [ttl1] * 3 + [unknown_type] * 2 + [v6] * 2 + [other_mac] * 2 + [arp_bad] + [arp_802] * 2 + [tagged_pfc]
    base = sw.stats()
    with Capture(t.host(1), "eth0", "udp") as cap:
        swlib.send(t.host(0), sends)
        # Every frame reached the switch and it holds none: what p1 sent
        # since is all that can arrive (the check below says it is the two
        # frames with options, nothing malformed).
        st = sw.wait_idle(rx_at_least={"p0": port(base, "p0")["rx_packets"] + len(sends)})
        data_tx = sum(prio(st, "p1", q)["tx_packets"] - prio(base, "p1", q)["tx_packets"] for q in range(8))
        got = cap.stop(expect=data_tx)
    d0 = prio(st, "p0", 0)["drops"]
    d3 = prio(st, "p0", 3)["drops"]
    r.eq(d0["bad_ip_checksum"], 3, "bad IPv4 header checksum dropped and counted")
    r.eq(d0["bad_ip_header"], 2 + 2 + 1, "IHL < 5, version != 4 and an all-zero header counted as bad_ip_header")
    r.eq(d0["truncated"], 2, "total length beyond the frame counted as truncated (and no ARP)")
    r.eq(d3["ttl_expired"], 3, "TTL 1 dropped as ttl_expired (by ingress priority 3)")
    r.eq(d0["unsupported"] + d3["unsupported"], 2 + 2, "unknown ethertype and IPv6: unsupported")
    r.eq(d0["arp_unsupported"], 1 + 2, "ARP with 8-byte hardware addresses and IEEE 802 ARP: arp_unsupported")
    r.eq(d3["not_for_us"], 2, "IPv4 to another MAC: not_for_us (a router never floods)")
    r.eq(port(st, "p0")["ipv4_options"], 2, "IPv4 options counted")
    sports = sorted(p[UDP].sport for p in got if p.haslayer(UDP))
    r.eq(sports, [12, 12], "options forwarded; nothing malformed leaked through")
    # The parser passes a tagged 0x8808 to the PFC codec, which finds no MAC
    # control ethertype at offset 12: malformed, on the lossy priority.
    r.eq(d0["pfc_malformed"], 1, "VLAN-tagged MAC control frame not honoured, counted as pfc_malformed")
    r.eq(prio(st, "p0", 3)["paused_now"], 0, "no pause taken from the tagged MAC control frame")
    res = ns(t.host(0), ["ping", "-c", "2", "-i", "0.2", "-W", "2", "10.0.2.2"], check=False)
    r.check(res.returncode == 0, "switch still forwards after the garbage")
    final = sw.stop()
r.eq(final["pool_in_use"], 0, "all mbufs returned")
r.done()
