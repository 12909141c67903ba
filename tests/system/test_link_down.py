#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test (issue 29 item 2): a device port's link going down ends the
pause it received, as a real port's link-down does. pfcswitch has two
af_packet ports on veths; p1's speed is 1 Mb/s, so one PFC XOFF with the
largest quanta (65535) pauses priority 4 for 33.5 s. h1 sends that XOFF,
then takes its eth0 down and up again (a cable pulled and put back): the
switch's link watch sees the veth lose its carrier, the pause ends and is
counted (link_down_events, pause_cleared_link_down), and priority 4
traffic from h0 reaches h1 at once after the link is back, not half a
minute later. pfcswitch prints the link changes."""
import time

from scapy.all import IP, UDP, Ether, Raw

import swlib
from swlib import Capture, Results, Switch, Topo, ns, port, prio

r = Results()
N = 20
P1_MAC = 'mac: "02:00:00:00:02:01"'
cfg = swlib.two_port_config().replace("speed: 10G, " + P1_MAC, "speed: 1M, " + P1_MAC)
assert "speed: 1M" in cfg


def link_is(sw, up):
    return lambda: port(sw.stats(), "p1")["link_up"] == up


with Topo(2, "ld") as t, Switch(t, swlib.write_config(cfg)) as sw:
    for h in range(2):
        ns(t.host(h), ["ping", "-c", "1", "-W", "2", f"10.0.{h + 1}.1"], check=False)
    r.eq(port(sw.stats(), "p1")["link_up"], 1, "p1's link is up at start")
    # Priority 4: tag 24 from p0 to p1 is rewritten to 26 (two_port_config).
    swlib.send(t.host(1), [swlib.pfc_frame(t.mac(1), 0x10, [0, 0, 0, 0, 0xffff, 0, 0, 0])])
    swlib.wait_until(lambda: prio(sw.stats(), "p1", 4)["paused_now"] == 1, 10, "p1 priority 4 paused")
    paused_at = time.monotonic()

    ns(t.host(1), ["ip", "link", "set", "eth0", "down"])
    swlib.wait_until(link_is(sw, 0), 5, "the switch sees p1's link down")
    down = sw.stats()
    r.eq(port(down, "p1")["link_down_events"], 1, "p1: one link-down counted")
    r.eq(port(down, "p1")["pause_cleared_link_down"], 1, "p1: the running pause ended by it, counted")
    r.eq(prio(down, "p1", 4)["paused_now"], 0, "p1 priority 4 no longer paused")
    r.eq(port(down, "p0")["link_down_events"], 0, "p0's link did not change")

    ns(t.host(1), ["ip", "link", "set", "eth0", "up"])
    swlib.wait_until(link_is(sw, 1), 5, "the switch sees p1's link up again")
    pkts = [Ether(src=t.mac(0), dst="02:00:00:00:01:01") / IP(src="10.0.1.2", dst="10.0.2.2", tos=0x60) /
            UDP(sport=4791, dport=4791) / Raw(i.to_bytes(4, "big") + bytes(60)) for i in range(N)]
    with Capture(t.host(1), "eth0", "udp port 4791") as c:
        swlib.send(t.host(0), pkts)
        got = c.stop(expect=N, timeout=10)
    elapsed = time.monotonic() - paused_at
    r.eq(len(got), N, "every priority 4 packet reached h1 after the link came back")
    r.check(elapsed < 30, f"and before the 33.5 s pause would have ended ({elapsed:.1f} s after it)")
    r.eq(prio(sw.stats(), "p1", 4)["tx_packets"], N, "sent on priority 4")
    final = sw.stop()
r.check("pfcswitch: port p1: link down" in sw.out and "pfcswitch: port p1: link up" in sw.out,
        "pfcswitch printed p1's link going down and coming back")
r.eq(final["pool_in_use"], 0, "every mbuf back in the pool")
r.done()
