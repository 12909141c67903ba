#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: one switch per file prefix and per interface. With a switch
running, a second one with the same --file-prefix, and a third with its own
prefix on the same af_packet interfaces, must both refuse to start, exit
non-zero and say what is taken and by which pid; the first keeps forwarding
every frame exactly once and keeps its telemetry. A switch killed with
SIGKILL (no cleanup at all) does not block the next one."""
import signal
import subprocess

from scapy.all import IP, UDP, Ether, Raw

import swlib
from swlib import Capture, Results, Switch, Topo, ns

r = Results()
SW0 = "02:00:00:00:01:01"
N = 50


def refused(sw, want, what):
    """Starts `sw` expecting it to exit non-zero with `want` in its output."""
    try:
        res = subprocess.run(sw.cmd, capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        r.check(False, f"{what}: still running after 30 s (killed): {out[-300:]}")
        return
    out = res.stdout + res.stderr
    r.check(res.returncode != 0 and want in out and "pfcswitch: forwarding" not in out,
            f"{what}: rc={res.returncode}, says {out.strip().splitlines()[-1] if out.strip() else '(nothing)'!r}")


def forward_once(t, sw, what):
    """N numbered frames h0 -> h1 arrive exactly once each (after the hosts
    ARP for their gateways, so the switch knows them)."""
    for h, gw in ((0, "10.0.1.1"), (1, "10.0.2.1")):
        ns(t.host(h), ["ip", "neigh", "flush", "all"])   # re-ARP: a new switch learns hosts from it
        ns(t.host(h), ["ping", "-c", "1", "-W", "2", gw], check=False)
    pkts = [Ether(src=t.mac(0), dst=SW0) / IP(src="10.0.1.2", dst="10.0.2.2") / UDP(sport=4, dport=4) /
            Raw(i.to_bytes(4, "big") + bytes(40)) for i in range(N)]
    with Capture(t.host(1), "eth0", "udp port 4") as cap:
        swlib.send(t.host(0), pkts)
        got = cap.stop()
    seqs = sorted(int.from_bytes(bytes(p[Raw])[:4], "big") for p in got)
    r.check(seqs == list(range(N)), f"{what}: each of {N} frames arrived once ({len(seqs)} arrived)")


cfg = swlib.write_config(swlib.two_port_config())
with Topo(2, "il") as t:
    with Switch(t, cfg) as sw:
        pid = sw.proc.pid   # `ip netns exec` execs the switch: same pid
        refused(Switch(t, cfg), f"pfcswitch: file prefix '{sw.prefix}' is in use by pfcswitch pid {pid} "
                f"(/var/run/dpdk/{sw.prefix}/pfcswitch.lock)", "second switch, same file prefix")
        refused(Switch(t, cfg, prefix="ilother"),
                f"pfcswitch: port p0: interface {t.port_if(0)} is already used by pfcswitch pid {pid}",
                "third switch, own prefix, same interfaces")
        r.check(sw.proc.poll() is None, "the first switch is still running")
        info = sw.ctl("info", check=False)
        r.check(info.returncode == 0 and cfg in info.stdout, "pfcctl still reaches the first switch")
        forward_once(t, sw, "first switch after the refusals")

        sw.proc.send_signal(signal.SIGKILL)   # a crash: no destructor, lock files stay
        sw.proc.wait()
    with Switch(t, cfg) as again:
        r.check(True, "a switch starts on the prefix and interfaces of a killed one")
        forward_once(t, again, "the new switch")
        again.stop()
r.done()
