#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: two workers, one per port, so every packet crosses workers:
charged to the ingress buffer by one, queued into the other's egress ring,
sent and released by the other. Traffic both ways at once; every packet
arrives, counters add up, and the buffer and the mbuf pool end empty. Run
twice: plain, and with DCFIT on (its causality counts sharded per worker,
its hooks under the switch's DCFIT lock), which must not change any of it;
in that run h1 also sends an XOFF for priority 4 after every 20th packet
(3.4 ms each at 10G), so worker 1 takes PFC frames and pause expiries into
DCFIT while worker 0 queues h0's packets behind the pause."""
import threading

from scapy.all import IP, UDP, Ether, Raw

import swlib
from swlib import Capture, Results, Switch, Topo, ns, prio

r = Results()
N = 800


XOFF_EVERY = 20


def run(extra, tag, pause=False):
    cfg = swlib.two_port_config().replace("workers: 1", "workers: 2") + extra
    with Topo(2, "mw") as t, Switch(t, swlib.write_config(cfg), workers=2) as sw:
        for h, gw in ((0, "10.0.1.1"), (1, "10.0.2.1")):
            ns(t.host(h), ["ping", "-c", "1", "-W", "2", gw], check=False)
        a = [Ether(src=t.mac(0), dst="02:00:00:00:01:01") / IP(src="10.0.1.2", dst="10.0.2.2", tos=0x60) /
             UDP(sport=21, dport=21) / Raw(i.to_bytes(4, "big") + bytes(200)) for i in range(N)]
        b = [Ether(src=t.mac(1), dst="02:00:00:00:02:01") / IP(src="10.0.2.2", dst="10.0.1.2", tos=0x68) /
             UDP(sport=22, dport=22) / Raw(i.to_bytes(4, "big") + bytes(200)) for i in range(N)]
        if pause:
            xoff = swlib.pfc_frame(t.mac(1), 1 << 4, [0, 0, 0, 0, 0xffff, 0, 0, 0])
            b = sum(([p, xoff] if i % XOFF_EVERY == XOFF_EVERY - 1 else [p] for i, p in enumerate(b)), [])
        with Capture(t.host(1), "eth0", "udp port 21") as c1, Capture(t.host(0), "eth0", "udp port 22") as c0:
            th = threading.Thread(target=swlib.send, args=(t.host(1), b))
            th.start()
            swlib.send(t.host(0), a)
            th.join()
            got1, got0 = c1.stop(), c0.stop()
        info = sw.ctl("info").stdout
        r.check('"workers": 2' in info, f"{tag}: two workers running")
        final = sw.stop()
    for got, name in ((got1, "h0 -> h1"), (got0, "h1 -> h0")):
        seqs = sorted(int.from_bytes(bytes(p[Raw])[:4], "big") for p in got)
        r.check(seqs == list(range(N)), f"{tag}: {name}: every packet once ({len(seqs)} of {N})")
    r.eq(prio(final, "p1", 4)["tx_packets"], N, f"{tag}: h0 -> h1 left p1 on priority 4 (rewritten 24 -> 26)")
    r.eq(final["drops_total"], 0, f"{tag}: no drops")
    r.eq(final["buffer_shared_used"], 0, f"{tag}: shared buffer back to empty")
    r.eq(sum(q["buffer_bytes"] for p in final["ports"] for q in p["prio"]), 0,
         f"{tag}: every priority group back to 0 bytes")
    r.eq(final["pool_in_use"], 0, f"{tag}: all mbufs returned")
    return final


run("", "plain")
final = run("dcfit: { enabled: true }\n", "dcfit", pause=True)
r.eq(prio(final, "p1", 4)["pfc_xoff_rx"], N // XOFF_EVERY, "dcfit: every XOFF from h1 honoured on p1")
r.eq(final.get("dcfit_deadlocks"), 0, "dcfit: on, and no deadlock declared (there is no loop)")
r.done()
