#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: an emulated 3-switch fabric on the real clock with two real
Linux hosts (network namespaces on af_packet veths) attached to its edge
switches, all in one pfcfabric process.

  h0 (ns) ==veth== S1 --1G-- S2 --10M-- S3 ==veth== h1 (ns)
                   \\____________ pfcfabric ____________/
The hosts are configured from the fabric's hosts.json (addresses and
gateways the fabric planned). Checked:
 * ping crosses the three switches (reply TTL 64 - 3: three routed hops;
   S1 and S3 learn the real hosts by ARP, as a ToR does);
 * a lossless UDP stream (DSCP 24, priority 3) from h0 to h1 faster than the
   10 Mb/s S2-S3 link: S2 pauses S1 over the emulated link (802.1Qbb frames,
   decoded by tshark from the fabric's pcapng capture of S1-S2), S1 honours
   it and holds the rest, and every packet arrives once, in order;
 * zero lossless drops in every switch (pfcctl --switch, results.json).
The real hosts ignore pause, so S1's host-facing headroom holds the whole
stream; switches are software sharing 2 cores with the senders, so their
response time (pfc.response_ns) covers an OS time slice."""
import json
import os
import re
import subprocess

from scapy.all import IP, UDP, Ether, Raw

from pfclib.fabric_results import results

import swlib
from swlib import Capture, Results, sh, prio

P = os.environ.get("FABRIC_REAL_PREFIX", "fr")
N = int(os.environ.get("FABRIC_REAL_PACKETS", "300"))
FABRIC = swlib.FABRIC
r = Results()

out = os.path.join(swlib.RUN_DIR, "fab")
tmpl = swlib.write_config(f"""
switch: {{ idle_sleep_us: 20 }}
qos: {{ tag_map: {{ 24: 3 }}, lossless: [3], lossy_priority: 0, lossy_tag: 0 }}
pfc: {{ response_ns: 10000000 }}
buffer:
  total_bytes: 4M
  cell_bytes: 256
  lossless: {{ reserved: 0, xoff: 32K, headroom: {N * 1100} }}
""")
fabric = swlib.run_file("fabric", ".yaml")
with open(fabric, "w") as f:
    f.write(f"""
fabric: {{ clock: real, bin: 10ms, out: {out} }}
{swlib.FABRIC_LINE3}links:
  rate: 1G
  delay: 10us
  overrides: [ {{ between: [S2, S3], rate: 10M }} ]
switch: {{ config: {tmpl} }}
hosts:
  - {{ name: H1, device: "net_af_packet0,iface={P}p0,framecnt=4096" }}
  - {{ name: H2, device: "net_af_packet1,iface={P}p1,framecnt=4096" }}
captures: [ {{ link: [S1, S2], file: s1-s2.pcapng }} ]
""")


class Fabric:
    """pfcfabric in the switch namespace, its EAL options its own."""

    def __enter__(self):
        self.log = open(swlib.run_file("pfcfabric", ".log"), "w+")
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", P + "sw", FABRIC, "--fabric", fabric],
            stdout=self.log, stderr=subprocess.STDOUT)

        def ready():
            self.log.seek(0)
            text = self.log.read()
            if self.proc.poll() is not None:
                raise RuntimeError("pfcfabric did not start:\n" + text)
            return "pfcfabric: running" in text and self.prefix()
        swlib.wait_until(ready, 60, "pfcfabric to start")
        return self

    def prefix(self):
        # The fabric's telemetry socket: pfcfabric chose EAL --file-prefix
        # pfcfabric-<pid> (ip netns exec execs it: same pid).
        self.file_prefix = f"pfcfabric-{self.proc.pid}"
        return os.path.exists(f"/var/run/dpdk/{self.file_prefix}/dpdk_telemetry.v2")

    def ctl(self, switch, *args):
        return sh([swlib.PFCCTL, "--file-prefix", self.file_prefix, "--switch", switch, *args]).stdout

    def stats(self, switch):
        return json.loads(self.ctl(switch, "stats"))

    def stop(self):
        self.proc.send_signal(2)
        self.proc.wait(60)
        self.log.seek(0)
        return self.log.read()

    def __exit__(self, *a):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


with swlib.Topo(2, P) as topo, Fabric() as fab:
    hosts = {h["name"]: h for h in json.load(open(os.path.join(out, "hosts.json")))["hosts"]}
    for i, name in enumerate(("H1", "H2")):
        h, hn = hosts[name], topo.host(i)
        r.eq(h["device"], f"net_af_packet{i}", f"{name}: hosts.json names its switch port's device")
        sh(["ip", "-n", hn, "addr", "flush", "dev", "eth0"])
        sh(["ip", "-n", hn, "addr", "add", h["ip"], "dev", "eth0"])
        sh(["ip", "-n", hn, "route", "add", "default", "via", h["gateway"]])
        # The gateway answers ARP and learns the host (no static neighbour
        # for a real host: its MAC is its NIC's).
        swlib.ns(hn, ["ping", "-c", "1", "-W", "2", h["gateway"]], check=False)
    h1_ip, h2_ip = (hosts[n]["ip"].split("/")[0] for n in ("H1", "H2"))
    ping = swlib.ns(topo.host(0), ["ping", "-c", "3", "-i", "0.2", "-W", "2", h2_ip], check=False)
    r.check(ping.returncode == 0 and "ttl=61" in ping.stdout,
            f"ping h0 -> h1 crosses three routed switches (reply ttl=61): {ping.stdout.strip()[-120:]}")

    src = swlib.ns(topo.host(0), ["cat", "/sys/class/net/eth0/address"]).stdout.strip()
    pkts = [Ether(src=src, dst=hosts["H1"]["gateway_mac"]) / IP(src=h1_ip, dst=h2_ip, tos=0x60) /
            UDP(sport=5001, dport=9) / Raw(i.to_bytes(4, "big") + bytes(996)) for i in range(N)]
    s2_before = prio(fab.stats("S2"), "S1", 3)["pfc_xoff_tx"]
    with Capture(topo.host(1), "eth0", "udp port 9") as cap, swlib.Sender(topo.host(0), pkts) as tx:
        tx.fire()
        tx.wait_sent()
        # 300 KB at 10 Mb/s: ~0.25 s once S1 has it all.
        swlib.wait_until(lambda: prio(fab.stats("S3"), "H2", 3)["tx_packets"] >= N, 60,
                         f"S3 to send all {N} lossless packets to h1")
        got = cap.stop(expect=N)
    live = {s: fab.stats(s) for s in ("S1", "S2", "S3")}
    text = fab.stop()

seqs = [int.from_bytes(bytes(p[Raw])[:4], "big") for p in got if p.haslayer(UDP) and p[UDP].sport == 5001]
r.check(seqs == list(range(N)), f"every lossless packet arrived once, in order ({len(seqs)} of {N})")
s2 = prio(live["S2"], "S1", 3)
r.check(s2["pfc_xoff_tx"] > s2_before, f"S2 paused S1 over the emulated link ({s2['pfc_xoff_tx']} XOFF)")
s1 = prio(live["S1"], "S2", 3)
r.check(s1["pfc_xoff_rx"] >= 1 and s1["paused_ns"] > 0,
        f"S1 honoured it: priority 3 towards S2 paused {s1['paused_ns'] / 1e6:.1f} ms")
for s in ("S1", "S2", "S3"):
    drops = sum(q["drops_total"] for p in live[s]["ports"] for q in p["prio"] if q["prio"] == 3)
    r.eq(drops, 0, f"{s}: no lossless drops")
r.check("lossless drops 0;" in text, "pfcfabric's summary: lossless drops 0")
res = results(out)
r.eq(res["lossless_drops"], 0, "results.json: lossless_drops 0")
# The capture of S1-S2 (the fabric's own pcapng): tshark decodes S2's PFC.
# S2's port towards S1, as the fabric configured it (switches/S2.yaml).
s2_mac = re.search(r"name: S1, device: [^,]+, mac: ([0-9a-f:]+)",
                   open(os.path.join(out, "switches", "S2.yaml")).read()).group(1)
tshark = sh(["tshark", "-r", os.path.join(out, "s1-s2.pcapng"), "-Y", "macc.opcode == 0x0101", "-T",
             "fields", "-e", "eth.src", "-e", "macc.cbfc.enbv", "-e", "macc.cbfc.pause_time.c3"],
            check=False)
xoff = [l for l in tshark.stdout.splitlines()
        if l.split("\t")[0] == s2_mac and int(l.split("\t")[1], 0) & 8 and l.split("\t")[2] not in ("", "0")]
r.check(tshark.returncode == 0 and len(xoff) >= 1,
        f"tshark decodes S2's XOFF frames for priority 3 on S1-S2 ({len(xoff)} frames)")
r.done()
