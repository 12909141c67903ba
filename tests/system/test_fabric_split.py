#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: one fabric split over two "servers" (two pfcfabric processes
in two network namespaces), the same fabric file on both, each with --here
naming its switches; the S1-S2 link is a cable between them (a veth pair on
af_packet devices), every other link is emulated where it runs.

  [ns A: pfcfabric --here S1]         [ns B: pfcfabric --here S2,S3]
   H1 (emulated) -- S1 ==x1====x2== S2 --20M-- S3 -- H2 (emulated)
Checked: a lossless flow from H1 (in A) to H2 (in B) at 50 Mb/s into the
20 Mb/s S2-S3 link arrives whole at H2 (B's results); S2 pauses S1 with
802.1Qbb frames across the real cable, S1 honours them and pauses H1 in turn
(hop-by-hop PFC over both kinds of link), and no switch drops a lossless
packet."""
import json
import os
import subprocess

from pfclib.fabric_results import results

import swlib
from swlib import Results, sh, prio

P = os.environ.get("FABRIC_SPLIT_PREFIX", "fs")
BYTES = 2_000_000
FRAME = 1000
FABRIC = swlib.FABRIC
r = Results()

tmpl = swlib.write_config("""
switch: { idle_sleep_us: 20 }
qos: { tag_map: { 24: 3 }, lossless: [3], lossy_priority: 0, lossy_tag: 0 }
# Two software processes on 2 cores: an OS time slice is their response time.
pfc: { response_ns: 10000000 }
buffer:
  total_bytes: 4M
  cell_bytes: 256
  lossless: { reserved: 0, xoff: 32K, headroom: auto }
""")
fabric = swlib.run_file("split", ".yaml")
with open(fabric, "w") as f:
    f.write(f"""
fabric: {{ clock: real, bin: 10ms }}
{swlib.FABRIC_LINE3}links:
  rate: 100M
  delay: 10us
  overrides:
    - {{ between: [S1, S2], devices: {{ S1: "net_af_packet0,iface={P}x1", S2: "net_af_packet0,iface={P}x2" }} }}
    - {{ between: [S2, S3], rate: 20M }}
switch: {{ config: {tmpl} }}
flows:
  - {{ name: f1, from: H1, to: H2, dscp: 24, prio: 3, rate: 50M, frame: {FRAME}, bytes: {BYTES} }}
""")


class Part:
    """One pfcfabric process running some of the switches."""

    def __init__(self, netns, here):
        self.netns, self.here = netns, here
        self.out = os.path.join(swlib.RUN_DIR, netns)

    def __enter__(self):
        self.log = open(swlib.run_file(self.netns, ".log"), "w+")
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", self.netns, FABRIC, "--fabric", fabric, "--here", self.here,
             "--out", self.out], stdout=self.log, stderr=subprocess.STDOUT)
        self.prefix = f"pfcfabric-{self.proc.pid}"  # ip netns exec execs it: same pid
        return self

    def ready(self):
        self.log.seek(0)
        text = self.log.read()
        if self.proc.poll() is not None:
            raise RuntimeError(f"pfcfabric --here {self.here} did not start:\n{text}")
        return "pfcfabric: running" in text

    def stats(self, switch):
        return json.loads(sh([swlib.PFCCTL, "--file-prefix", self.prefix, "--switch", switch,
                              "stats"]).stdout)

    def stop(self):
        self.proc.send_signal(2)
        self.proc.wait(60)
        self.log.seek(0)
        return self.log.read(), results(self.out)

    def __exit__(self, *a):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


for n in ("A", "B"):
    swlib.netns_add(P + n)
sh(["ip", "link", "add", P + "x1", "netns", P + "A", "type", "veth", "peer", "name", P + "x2",
    "netns", P + "B"])
for n, d in (("A", "x1"), ("B", "x2")):
    swlib.ns(P + n, ["ethtool", "-K", P + d, "tx", "off", "tso", "off", "gso", "off", "gro", "off",
                     "rx", "off"], check=False)
    sh(["ip", "-n", P + n, "link", "set", P + d, "up"])

# B first: A's flow starts as soon as A runs.
with Part(P + "B", "S2,S3") as b:
    swlib.wait_until(b.ready, 60, "pfcfabric --here S2,S3 to start")
    with Part(P + "A", "S1") as a:
        swlib.wait_until(a.ready, 60, "pfcfabric --here S1 to start")
        # 2 MB through 20 Mb/s: about 0.8 s once it is all sent.
        swlib.wait_until(lambda: prio(b.stats("S3"), "H2", 3)["tx_bytes"] >= BYTES, 60,
                         f"S3 to send all {BYTES} bytes of f1 to H2")
        s1 = a.stats("S1")
        text_a, res_a = a.stop()
    s2 = b.stats("S2")
    text_b, res_b = b.stop()

fa = [f for f in res_a["flows"] if f["name"] == "f1"][0]
fb = [f for f in res_b["flows"] if f["name"] == "f1"][0]
r.eq(fa["tx_bytes"], BYTES, "A: H1 sent the whole flow")
r.eq(fb["rx_bytes"], BYTES, "B: H2 received the whole flow across the cable")
r.check(prio(s2, "S1", 3)["pfc_xoff_tx"] >= 1,
        f"S2 paused S1 across the cable ({prio(s2, 'S1', 3)['pfc_xoff_tx']} XOFF on its af_packet port)")
r.check(prio(s1, "S2", 3)["pfc_xoff_rx"] >= 1 and prio(s1, "S2", 3)["paused_ns"] > 0,
        f"S1 honoured it: priority 3 towards S2 paused {prio(s1, 'S2', 3)['paused_ns'] / 1e6:.1f} ms")
r.check(prio(s1, "H1", 3)["pfc_xoff_tx"] >= 1, "S1 paused H1 in turn (hop-by-hop PFC)")
r.eq(res_a["lossless_drops"], 0, "A: no lossless drops")
r.eq(res_b["lossless_drops"], 0, "B: no lossless drops")
r.eq(sorted(res_b["switches"]), ["S2", "S3"], "B ran S2 and S3 only")
r.eq(sorted(res_a["switches"]), ["S1"], "A ran S1 only")
r.done()
