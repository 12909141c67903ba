#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: pfcswitch on net_pcap ports exits cleanly. The pcap driver
keeps mbufs of its own (infinite_rx copies the whole capture into mbufs at
start and frees them when the port is closed); pfcswitch used to free the
mempool first and then segfaulted at exit. Here one port replays a capture
forever (frames for another MAC, dropped as not_for_us) while the other
reads ten frames once, which are routed out of the first port into its
tx_pcap file. After SIGINT the switch must exit 0 with its final counters,
with every mbuf back in the pool before the pool is freed (the devices are
closed first; pfcswitch reports any mbuf still out), and the tx file must
hold the ten routed frames."""
import json
import os
import signal
import subprocess
import time

from scapy.all import IP, UDP, Ether, Raw, rdpcap, wrpcap

import swlib
from swlib import Results, sh

r = Results()
prefix = "pxdp"
in0, in1 = swlib.run_file("in0-", ".pcap"), swlib.run_file("in1-", ".pcap")
out0, out1 = swlib.run_file("out0-", ".pcap"), swlib.run_file("out1-", ".pcap")
ip = IP(src="10.0.1.2", dst="10.0.2.2", tos=24 << 2, ttl=9) / UDP(sport=5, dport=6) / Raw(bytes(18))
wrpcap(in0, [Ether(src="02:00:00:00:01:02", dst="02:00:00:00:01:01") / ip] * 10)
wrpcap(in1, [Ether(src="02:00:00:00:02:02", dst="02:99:99:99:99:99") / ip] * 64)
cfg = swlib.write_config("""
switch: { mode: l3, workers: 1, idle_sleep_us: 20 }
ports:
  - { name: p0, device: net_pcap0, ipv4: 10.0.1.1/24, speed: 10G, mac: "02:00:00:00:01:01" }
  - { name: p1, device: net_pcap1, ipv4: 10.0.2.1/24, speed: 10G, mac: "02:00:00:00:02:01" }
neighbors:
  - { ip: 10.0.2.2, mac: "02:00:00:00:02:02", port: p1 }
qos: { tag_map: { 24: 3 }, lossless: [3] }
""")
log = swlib.run_file("pfcswitch-", ".log")
cmd = [swlib.SWITCH, "--lcores", f"0@0,1@{1 % os.cpu_count()}", "--no-huge", "--no-pci", "--no-shconf",
       "-m", "256", "--file-prefix", prefix, "--log-level=lib.eal:error",
       "--vdev", f"net_pcap0,rx_pcap={in0},tx_pcap={out0}",
       "--vdev", f"net_pcap1,rx_pcap={in1},tx_pcap={out1},infinite_rx=1",
       "--", "--config", cfg, "--stats-json", "-"]


def port(stats, name):
    return next(p for p in stats["ports"] if p["name"] == name)


def wait_for(cond, what, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(0.1)
    r.check(False, f"{what} within {timeout} s")
    return False


with open(log, "w") as out:
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
try:
    started = wait_for(lambda: proc.poll() is not None or "pfcswitch: forwarding" in open(log).read(),
                       "pfcswitch started")
    r.check(started and proc.poll() is None, "pfcswitch runs on two net_pcap ports")

    def live():
        res = sh([swlib.PFCCTL, "--file-prefix", prefix, "stats"], check=False)
        return json.loads(res.stdout) if res.returncode == 0 else None

    def forwarded():
        st = live()
        return st is not None and port(st, "p1")["tx_packets"] >= 10 and port(st, "p1")["rx_packets"] > 1000

    if started and proc.poll() is None:
        wait_for(forwarded, "the ten frames routed and the replay running")
    proc.send_signal(signal.SIGINT)
    try:
        rc = proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = proc.wait()
        r.check(False, "pfcswitch stopped within 30 s of SIGINT")
finally:
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    sh(["rm", "-rf", f"/var/run/dpdk/{prefix}"], check=False)

text = open(log).read()
r.eq(rc, 0, "exit status after SIGINT (a signal death is negative)")
stats = [json.loads(l[len("pfcswitch: stats "):]) for l in text.splitlines() if l.startswith("pfcswitch: stats ")]
r.eq(len(stats), 1, "one final stats line")
if stats:
    p1 = port(stats[0], "p1")
    r.check(p1["rx_packets"] > 1000, f"the replayed capture kept arriving on p1 ({p1['rx_packets']} frames)")
    r.eq(p1["tx_packets"], 10, "the ten frames left by p1")
r.check("Segmentation fault" not in text and "PANIC" not in text, "no crash in the log")
r.check("TELEMETRY" not in text, "no telemetry notice (\"No legacy callbacks\") in the log")
summary = [l for l in text.splitlines() if l.startswith("pfcswitch: exit: ")]
r.check(len(summary) == 1 and bool(stats) and summary[0].startswith(
    f"pfcswitch: exit: rx {sum(p['rx_packets'] for p in stats[0]['ports'])} "
    f"tx {sum(p['tx_packets'] for p in stats[0]['ports'])} packets"),
    f"the one-line exit summary sums the ports ({summary})")
# Devices closed before the pool is freed: the replay's mbufs went home.
r.check("not back in the pool" not in text, "every mbuf back in the pool at exit")
sent = [p for p in rdpcap(out1) if p.haslayer(UDP)] if os.path.getsize(out1) > 24 else []
r.eq(len(sent), 10, "the ten routed frames in p1's tx_pcap file, written at close")
r.check(all(p[IP].ttl == 8 and p[Ether].dst == "02:00:00:00:02:02" for p in sent), "routed: TTL 8, neighbour MAC")
if r.failed:
    print(text[-3000:])
r.done()
