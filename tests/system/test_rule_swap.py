#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: rewrite rules and routes change at run time under traffic.
A stream of numbered packets crosses the switch while pfcctl swaps between
two rule files ten times; every packet must arrive exactly once, each with
the old or the new tag (never anything else), and nothing is dropped. A bad
rules file is refused with a clear error and changes nothing."""
import threading

from scapy.all import IP, UDP, Ether, Raw

import swlib
from swlib import Capture, Results, Switch, Topo, ns, prio, wait_until

r = Results()
N = 1500
RULES_A = swlib.write_config("""
rewrite:
  unmatched: lossy
  rules:
    - { tag: 24, in: [p0], out: [p1], new_tag: 26 }
""")
RULES_B = swlib.write_config("""
qos:
  tag_map: { 24: 3, 26: 4, 28: 4 }
  lossless: [3, 4]
rewrite:
  unmatched: lossy
  rules:
    - { tag: 24, in: [0], out: [1], new_tag: 28 }
routes:
  - { prefix: 10.0.9.0/24, port: p1, via: 10.0.2.2 }
""")
BAD = swlib.write_config("""
rewrite:
  rules:
    - { tag: 24, in: [p7], out: "*", new_tag: 26 }
""")

with Topo(2, "rs") as t, Switch(t, swlib.write_config(swlib.two_port_config())) as sw:
    for h, gw in ((0, "10.0.1.1"), (1, "10.0.2.1")):
        ns(t.host(h), ["ping", "-c", "1", "-W", "2", gw], check=False)
    gen0 = int(sw.ctl("raw", "/pfcswitch/info").stdout.split('"generation":')[1].split(",")[0])
    pkts = [Ether(src=t.mac(0), dst="02:00:00:00:01:01") / IP(src="10.0.1.2", dst="10.0.2.2", tos=0x60) /
            UDP(sport=7, dport=7) / Raw(i.to_bytes(4, "big") + b"p" * 60) for i in range(N)]
    swaps = []
    rx0 = swlib.port(sw.stats(), "p0")["rx_packets"]
    def swapper():
        # Swap k happens once (k + 1)/12 of the packets reached the switch,
        # so all ten fall inside the traffic, whatever the sender's pace.
        for k in range(10):
            wait_until(lambda: swlib.port(sw.stats(), "p0")["rx_packets"] >= rx0 + (k + 1) * N // 12,
                       60, f"{(k + 1) * N // 12} packets received before swap {k + 1}")
            res = sw.ctl("load", RULES_B if k % 2 == 0 else RULES_A, check=False)
            swaps.append(res.returncode)
    with Capture(t.host(1), "eth0", "udp port 7") as cap:
        th = threading.Thread(target=swapper)
        sender = threading.Thread(target=swlib.send, args=(t.host(0), pkts), kwargs={"inter": 0.001})
        sender.start()
        th.start()
        th.join()
        sender.join()
        got = cap.stop(expect=N)
    r.eq(swaps, [0] * 10, "ten rule swaps accepted by pfcctl load")
    seqs = [int.from_bytes(bytes(p[Raw])[:4], "big") for p in got]
    r.eq(len(seqs), N, "every packet arrived")
    missing = sorted(set(range(N)) - set(seqs))
    r.check(len(set(seqs)) == len(seqs) and not missing,
            f"each sequence number exactly once ({len(missing)} missing, first {missing[:5]})")
    tags = [p[IP].tos >> 2 for p in got]
    r.check(set(tags) <= {26, 28}, f"only the old or the new tag seen: {sorted(set(tags))}")
    r.check(26 in tags and 28 in tags, "both rule sets were live during the run")
    info = sw.ctl("info").stdout
    r.check(f'"generation": {gen0 + 10}' in info, "ten new table generations published")

    bad = sw.ctl("load", BAD, check=False)
    r.check(bad.returncode != 0 and BAD in bad.stderr and "rewrite.rules[0].in[0]" in bad.stderr,
            f"bad rules file refused with file and field: {bad.stderr.strip()}")
    r.check(f'"generation": {gen0 + 10}' in sw.ctl("info").stdout, "refused file changed nothing")
    final = sw.stop()

r.eq(final["drops_total"], 0, "no drops at all during the swaps")
r.eq(prio(final, "p1", 4)["tx_packets"], N, "all packets left through priority 4 (tags 26 and 28)")
r.done()
