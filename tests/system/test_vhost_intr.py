#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: pfcswitch serving two vhost-user ports (net_vhost, as VMs
attach) sleeps on receive interrupts when idle and is woken by the guest's
kick. The guests are two dpdk-testpmd processes with virtio-user ports (the
frontend a VM's virtio-net driver would be): a sender that sends single
frames on command (start tx_first 1) and a receiver in rxonly mode.

Checked:
 * idle with both guests attached, the worker wakes about once per
   interrupt_sleep_ms (1 s here), not every idle_sleep_us (20 us: tens of
   thousands of rounds a second);
 * frames sent one by one, each after the last was routed and 0.1 s
   later, each wake the worker (an interrupt
   sleep ends per frame, where without the kick the worker would sleep on
   for up to 1 s), are routed p0 -> p1 and all reach the receiver;
 * after each such wake the worker polls (a timed sleep: a stream's next
   packets need no kick, dataplane/sched/idle_policy.h), and the first
   timed sleep that ends with nothing puts it back on interrupts;
 * no drops, the mbuf pool ends empty."""
import json
import os
import signal
import subprocess
import time

import swlib
from swlib import Results, wait_until

r = Results()
TESTPMD = "/usr/bin/dpdk-testpmd"
N = 6

if not os.path.exists(TESTPMD):
    print("SKIP: dpdk-testpmd not installed (apt-get install dpdk)")
    raise SystemExit(77)

D = swlib.RUN_DIR
CFG = swlib.write_config("""
switch: { mode: l3, workers: 1, idle_sleep_us: 20, interrupt_sleep_ms: 1000 }
ports:
  - { name: p0, device: net_vhost0, ipv4: 10.0.1.1/24, speed: 10G, mac: "02:00:00:00:01:01" }
  - { name: p1, device: net_vhost1, ipv4: 10.0.2.1/24, speed: 10G, mac: "02:00:00:00:02:01" }
neighbors:
  - { ip: 10.0.2.2, mac: "02:00:00:00:02:02", port: p1 }
  - { ip: 10.0.1.2, mac: "02:00:00:00:01:02", port: p0 }
qos: { tag_map: { 24: 3 }, lossless: [3], lossy_priority: 0, lossy_tag: 0 }
""")
PREFIX = f"vhi{os.getpid()}"


def eal(prefix, lcores, vdev, mem):
    return ["--no-pci", "--no-huge", "--no-shconf", "-m", str(mem), "--file-prefix", prefix,
            "--lcores", lcores, "--log-level=lib.eal:error", "--vdev", vdev]


def ctl(what):
    """pfcctl info or stats of the switch, as JSON."""
    return json.loads(swlib.sh([swlib.PFCCTL, "--file-prefix", PREFIX, what]).stdout)


def guest(tag, sock, mac, extra, stdin=None):
    """A testpmd whose virtio-user port connects to the switch's socket."""
    log = open(os.path.join(D, f"{tag}.log"), "w")
    cmd = [TESTPMD, *eal(PREFIX + tag, "0@0,1@1", f"net_virtio_user0,path={sock},queues=1,mac={mac}", 512),
           "--", "--no-mlockall", "--total-num-mbufs=2048", "--forward-mode=rxonly", *extra]
    return subprocess.Popen(cmd, stdin=stdin, stdout=log, stderr=subprocess.STDOUT, text=True), log.name


sw_log = os.path.join(D, "switch.log")
sw = subprocess.Popen([swlib.SWITCH, *eal(PREFIX, "0@0,1@1",
                                          f"net_vhost0,iface={D}/a.sock,queues=1", 256),
                       "--vdev", f"net_vhost1,iface={D}/b.sock,queues=1", "--", "--config", CFG,
                       "--stats-json", "-"],
                      stdout=open(sw_log, "w"), stderr=subprocess.STDOUT, text=True)
procs = [sw]
try:
    wait_until(lambda: "pfcswitch: forwarding" in open(sw_log).read() or sw.poll() is not None, 30,
               "pfcswitch to start")
    r.check(sw.poll() is None, "pfcswitch runs with two net_vhost ports")
    # The worker says so from its own thread, maybe after main's "forwarding".
    intr_on = False
    try:
        wait_until(lambda: "sleeps until a packet on its 2 ports" in open(sw_log).read(), 5,
                   "the worker's receive-interrupt line")
        intr_on = True
    except RuntimeError:
        pass
    r.check(intr_on, "the worker uses receive interrupts on both vhost ports")
    rx, rx_log = guest("rx", f"{D}/b.sock", "02:00:00:00:02:02", ["-a", "--stats-period", "1"])
    procs.append(rx)
    tx, tx_log = guest("tx", f"{D}/a.sock", "02:00:00:00:01:02",
                       ["-i", "--burst=1", "--eth-peer=0,02:00:00:00:01:01", "--tx-ip=10.0.1.2,10.0.2.2"],
                       stdin=subprocess.PIPE)
    procs.append(tx)
    wait_until(lambda: "testpmd>" in open(tx_log).read() or tx.poll() is not None, 30, "the sender's prompt")
    time.sleep(1.0)  # both guests attached and quiet

    # Idle: one wake a second, not one every 20 us.
    a = ctl("info")
    time.sleep(2.0)
    b = ctl("info")
    loops = b["worker_loops"] - a["worker_loops"]
    r.check(loops < 200, f"idle for 2 s: {loops} worker rounds (timed 20 us sleeps would be > 20,000)")
    r.check(b["intr_sleeps"] > a["intr_sleeps"], "idle sleeps are interrupt sleeps")

    # Frames one by one: each kick ends a sleep. The next frame goes only
    # after the last one was routed: a sender held up on a loaded host runs
    # its queued commands back to back, and a frame that lands during the
    # previous wake's timed poll rightly needs no kick.
    def routed(n):
        return swlib.port(ctl("stats"), "p1")["tx_packets"] >= n
    a = ctl("info")
    for i in range(N):
        tx.stdin.write("start tx_first 1\n")
        tx.stdin.write("stop\n")
        tx.stdin.flush()
        wait_until(lambda: routed(i + 1), 10, f"the switch to route frame {i + 1} to p1")
        time.sleep(0.1)  # the worker back on interrupts (its first empty timed sleep)
    b = ctl("info")
    wakes = b["intr_sleeps"] - a["intr_sleeps"]
    r.check(wakes >= N, f"{N} frames 0.1 s apart ended {wakes} interrupt sleeps (>= {N}: woken by each kick)")
    timed = b["idle_sleeps"] - a["idle_sleeps"]
    r.check(N <= timed <= 3 * N, f"{N} wakes were followed by {timed} timed sleeps (one each, then interrupts)")
    st = ctl("stats")
    r.eq((swlib.port(st, "p0")["rx_packets"], swlib.port(st, "p1")["tx_packets"]), (N, N),
         "p0 received and p1 sent every frame")
    r.eq(sum(n for p in st["ports"] for q in p["prio"] for n in q["drops"].values()), 0, "no drops")
    tx.stdin.write("quit\n")
    tx.stdin.flush()
    tx.wait(20)
    rx.send_signal(signal.SIGINT)
    rx.wait(20)
    got = [line for line in open(rx_log).read().splitlines() if "RX-packets:" in line]
    r.check(got and f"RX-packets: {N} " in got[-1], f"the receiver got {N} frames: {got[-1:]}")
    sw.send_signal(signal.SIGINT)
    sw.wait(20)
    final = swlib.final_stats(open(sw_log).read())
    r.check(final is not None, "pfcswitch exits with its final stats")
    if final is not None:
        r.eq(final["pool_in_use"], 0, "all mbufs returned")
finally:
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()
r.done()
