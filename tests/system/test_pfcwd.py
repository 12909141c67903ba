#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: the pause-storm watchdog in the real pfcswitch (veth, real
clock). h1 keeps priority 3 of the switch's p1 paused for 2 s (an XOFF of
0xffff quanta, 0.34 s at 100 Mb/s, every 0.1 s) and h0 sends 10 lossless
packets that must wait behind that pause: with pfc_watchdog { detect_time: 20ms, restore_time: 200ms, action:
drop } the switch declares a storm on p1 priority 3, discards the 10
packets (pfcwd_storm, by ingress port p0), reports it through
`pfcctl events` and its counters, restores once the pause has been over
for 200 ms, and then forwards lossless packets again."""
from scapy.all import IP, UDP, Ether, Raw

import swlib
from swlib import Results, Sender, Switch, Topo, ns, prio, wait_until

r = Results()
SW0 = "02:00:00:00:01:01"
cfg = swlib.write_config(swlib.two_port_config().replace("speed: 10G", "speed: 100M")
                         .replace("unmatched: lossy", "unmatched: keep")
                         .replace("- { tag: 24, in: [p0], out: [p1], new_tag: 26, priority: 10 }", "")
                         + "pfc_watchdog: { enabled: true, detect_time: 20ms, restore_time: 200ms, "
                           "action: drop }\n")


def stream(src_mac, n, first):
    return [Ether(src=src_mac, dst=SW0) / IP(src="10.0.1.2", dst="10.0.2.2", tos=0x60) /
            UDP(sport=5000, dport=9) / Raw((first + i).to_bytes(4, "big") + bytes(196)) for i in range(n)]


def events(sw):
    return [line for line in sw.ctl("events").stdout.splitlines() if line.startswith("pfcwd: ")]


with Topo(2, "pw") as t, Switch(t, cfg) as sw:
    for h, gw in ((0, "10.0.1.1"), (1, "10.0.2.1")):
        ns(t.host(h), ["ping", "-c", "1", "-W", "2", gw], check=False)
    m0, m1 = t.mac(0), t.mac(1)
    # The storm: an XOFF every 0.1 s for 2 s, each refreshing the last.
    xoff = swlib.pfc_frame(m1, 1 << 3, [0, 0, 0, 0xffff, 0, 0, 0, 0])
    with Sender(t.host(1), [xoff] * 20, inter=0.1) as storm, Sender(t.host(0), stream(m0, 10, 0)) as data:
        storm.fire()
        wait_until(lambda: prio(sw.stats(), "p1", 3)["paused_now"] == 1, 5, "p1 priority 3 paused")
        data.fire()
        data.wait_sent()
        wait_until(lambda: any("storm port=p1 prio=3" in e for e in events(sw)), 5, "a storm event")
        st = sw.stats()  # while the host still storms
        r.eq(prio(st, "p1", 3)["pfcwd_storms"], 1, "storm counted on p1 priority 3")
        r.eq(prio(st, "p1", 3)["pfcwd_in_storm"], 1, "p1 priority 3 in storm")
        r.eq(prio(st, "p0", 3)["drops"]["pfcwd_storm"], 10, "the 10 queued packets discarded, by ingress port")
        r.eq(prio(st, "p1", 3)["queue_depth"], 0, "p1's queue 3 empty")
        storm.wait_sent()
    wait_until(lambda: any("restored port=p1 prio=3" in e for e in events(sw)), 5, "a restore event")
    swlib.send(t.host(0), stream(m0, 10, 100))
    idle = sw.wait_idle(rx_at_least={("p0", 3): 20})
    r.eq(prio(idle, "p1", 3)["tx_packets"], 10, "after the restore lossless packets leave again")
    r.eq(prio(idle, "p1", 3)["pfcwd_restores"], 1, "restore counted")
    st = sw.stop()
    r.check("pfcswitch: pfcwd: storm port=p1 prio=3" in sw.out, "the storm line in the log")
    r.eq(prio(st, "p0", 3)["drops"]["pfcwd_storm"], 10, "no more watchdog drops after the restore")
r.done()
