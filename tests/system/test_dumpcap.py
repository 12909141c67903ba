#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: DPDK's own capture tool on a running pfcswitch. dpdk-dumpcap
(a DPDK secondary process) attaches to the switch through its file prefix
and captures port p0 through rte_pdump while a lossless stream crosses it
into a shaped egress, so the switch sends PFC out of p0. tshark (a decoder
nobody here wrote) reads the pcapng: every data frame p0 received, and the
PFC frames it sent, as many as the switch counted, decoded as 802.1Qbb
XOFF/XON for priority 3 and marked outbound.

A secondary needs the switch's memory in hugepages and DPDK's shared config
(dataplane/pfcswitch/capture.h): the switch runs without --no-huge / --no-shconf,
and the test reserves and mounts hugepages if the machine has none, giving
back what it took at exit."""
import atexit
import glob
import os
import re
import select
import signal
import subprocess
import time

from scapy.all import IP, UDP, Ether, Raw

import swlib
from swlib import Results, Switch, Topo, ns, port, prio, wait_until

r = Results()
SW0 = "02:00:00:00:01:01"
N = 400
MEM_MB = 128
NR_HUGE = "/proc/sys/vm/nr_hugepages"
INBOUND, OUTBOUND = 1, 2   # pcapng epb_flags direction bits


def meminfo(key):
    with open("/proc/meminfo") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":"))


def ensure_hugepages(mb):
    """At least `mb` MB of free hugepages on a mounted hugetlbfs (returned);
    what this takes (pages, mount) is given back at exit."""
    page_mb = meminfo("Hugepagesize") // 1024
    free = meminfo("HugePages_Free")
    need = -(-mb // page_mb)
    if free < need:
        with open(NR_HUGE) as f:
            before = int(f.read())
        with open(NR_HUGE, "w") as f:
            f.write(str(before + need - free))
        atexit.register(lambda: open(NR_HUGE, "w").write(str(before)))
        if meminfo("HugePages_Free") < need:
            print(f"SKIP: the kernel gave {meminfo('HugePages_Free')} of {need} hugepages", flush=True)
            os._exit(77)
    with open("/proc/mounts") as f:
        mounts = [line.split()[1] for line in f if line.split()[2] == "hugetlbfs"]
    if mounts:
        return mounts[0]
    os.makedirs("/dev/hugepages", exist_ok=True)
    swlib.sh(["mount", "-t", "hugetlbfs", "nodev", "/dev/hugepages"])
    # Registered after the pages: runs first (atexit is LIFO).
    atexit.register(lambda: subprocess.run(["umount", "/dev/hugepages"]))
    return "/dev/hugepages"


class Dumpcap:
    """dpdk-dumpcap on one port of a running switch, writing pcapng."""

    def __init__(self, sw, device):
        self.file = swlib.run_file("dumpcap-", ".pcapng")
        # In the switch's namespace: the secondary's ethdev calls on an
        # af_packet port (promiscuous mode) act on the switch's interfaces.
        self.cmd = ["ip", "netns", "exec", sw.topo.sw, "dpdk-dumpcap", f"--file-prefix={sw.prefix}",
                    "-i", device, "-w", self.file]
        self.err = ""

    def __enter__(self):
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        # dumpcap prints its running count ("Packets captured: N", ended by
        # a carriage return) once rte_pdump copies the port.
        deadline = time.time() + 30
        while "Packets captured:" not in self.err:
            if not select.select([self.proc.stderr], [], [], max(0, deadline - time.time()))[0]:
                raise RuntimeError(f"dpdk-dumpcap did not start capturing in 30 s:\n{self.err}")
            chunk = os.read(self.proc.stderr.fileno(), 4096).decode(errors="replace")
            if not chunk:
                raise RuntimeError(f"dpdk-dumpcap exited {self.proc.wait()}:\n{self.err}")
            self.err += chunk
        return self

    def stop(self):
        self.proc.send_signal(signal.SIGINT)
        _, err = self.proc.communicate(timeout=20)
        self.err += err.decode(errors="replace")
        return self.proc.returncode

    def __exit__(self, *a):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


HUGE_DIR = ensure_hugepages(MEM_MB + 64)   # the switch, and dumpcap's ring and mbufs
cfg = swlib.write_config(swlib.shaped_two_port_config())
with Topo(2, "dc") as t, Switch(t, cfg, mem=MEM_MB, shared=True) as sw:
    with open(sw.log) as f:
        r.check(f"pfcswitch: capture ready: dpdk-dumpcap --file-prefix={sw.prefix}" in f.read(),
                "the switch says how to capture it")
    for h, gw in ((0, "10.0.1.1"), (1, "10.0.2.1")):
        ns(t.host(h), ["ping", "-c", "1", "-W", "2", gw], check=False)
    data = [Ether(src=t.mac(0), dst=SW0) / IP(src="10.0.1.2", dst="10.0.2.2", tos=0x60) /
            UDP(sport=3000, dport=9) / Raw(i.to_bytes(4, "big") + bytes(996)) for i in range(N)]
    with Dumpcap(sw, "net_af_packet0") as cap:
        base = sw.stats()
        swlib.send(t.host(0), data)
        idle = sw.wait_idle(rx_at_least={("p0", 3): prio(base, "p0", 3)["rx_packets"] + N})
        pfc_tx = port(idle, "p0")["pfc_frames_tx"] - port(base, "p0")["pfc_frames_tx"]
        # The copies reach dumpcap's ring at once, but dumpcap writes them
        # out in its own time: wait for the count the switch gives.
        wait_until(lambda: len(swlib.tshark_fields(cap.file, ["frame.number"], "macc")) >= pfc_tx, 10,
                   f"{pfc_tx} PFC frames in the dumpcap file")
        rc = cap.stop()
    r.eq(rc, 0, "dpdk-dumpcap exits 0 on SIGINT")
    # "Packets received/dropped on interface 'net_af_packet0': 419/0 (100.0)"
    lost = re.search(r"received/dropped on interface 'net_af_packet0': (\d+)/(\d+)", cap.err)
    r.check(lost and lost.group(2) == "0", f"dumpcap lost nothing: {lost and lost.group(0)}")
    st = sw.stop()
    c3 = prio(st, "p0", 3)
    r.check(c3["pfc_xoff_tx"] >= 1 and c3["pfc_xon_tx"] >= 1,
            f"the switch paused h0: XOFF {c3['pfc_xoff_tx']}, XON {c3['pfc_xon_tx']} for prio 3 on p0")
    r.eq(c3["drops_total"], 0, "no lossless drops")

    pfc = swlib.tshark_fields(cap.file, ["eth.dst", "macc.opcode", "macc.cbfc.enbv",
                                         "macc.cbfc.pause_time.c3", "frame.packet_flags_direction",
                                         "_ws.expert"])
    r.eq(len(pfc), pfc_tx, "PFC frames captured = p0's pfc_frames_tx")
    if pfc:
        r.check(all(d["eth.dst"] == "01:80:c2:00:00:01" and d["macc.opcode"] == "0x0101" for d in pfc),
                "every captured PFC frame: 01:80:c2:00:00:01, opcode 0x0101")
        r.check(all(int(d["macc.cbfc.enbv"], 16) == 0x08 for d in pfc), "class-enable vector: priority 3 only")
        quanta = [d["macc.cbfc.pause_time.c3"] for d in pfc]
        r.eq(quanta[0], "65535", "first PFC frame is XOFF (quanta 65535)")
        r.eq(quanta[-1], "0", "last PFC frame is XON (quanta 0)")
        # pfc_xoff_tx counts pauses begun; a pause held longer than a
        # refresh period sends XOFF again, so XOFF frames >= pfc_xoff_tx.
        r.eq(quanta.count("0"), c3["pfc_xon_tx"], "XON frames captured = pfc_xon_tx")
        r.check(quanta.count("65535") >= c3["pfc_xoff_tx"] and quanta.count("65535") + quanta.count("0") == len(pfc),
                f"every other frame is an XOFF ({quanta.count('65535')}, pfc_xoff_tx {c3['pfc_xoff_tx']})")
        r.check(all(int(d["frame.packet_flags_direction"], 16) == OUTBOUND for d in pfc),
                "PFC frames marked outbound in the pcapng")
        r.check(all(not d["_ws.expert"] for d in pfc), "no tshark expert warnings")

    got = swlib.tshark_fields(cap.file, ["udp.payload", "frame.packet_flags_direction", "ip.dsfield.dscp"],
                              "udp.dstport == 9 && ip.src == 10.0.1.2 && !icmp")
    seqs = sorted(int(d["udp.payload"].replace(":", "")[:8], 16) for d in got)
    r.check(seqs == list(range(N)), f"every data frame p0 received is in the capture, once ({len(seqs)} of {N})")
    r.check(all(int(d["frame.packet_flags_direction"], 16) == INBOUND and d["ip.dsfield.dscp"] == "24" for d in got),
            "data frames marked inbound, with their DSCP 24 as received")
    r.eq(st["pool_in_use"], 0, "all mbufs returned after capturing")
# EAL leaves its hugepage files behind (a later primary with the prefix
# reuses them); give the memory back.
for f in glob.glob(os.path.join(HUGE_DIR, sw.prefix + "map_*")):
    os.unlink(f)
r.done()
