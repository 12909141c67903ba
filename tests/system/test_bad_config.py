#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: configs are validated completely before anything starts.
Each broken config makes `pfcswitch --check-config` (and a real start) exit
non-zero with an error naming the file, the line and the field."""
import os

import swlib
from swlib import Results, sh

r = Results()
GOOD = swlib.two_port_config()


def case(name, text, want_field, want_line=None):
    path = swlib.write_config(text)
    res = sh([swlib.SWITCH, "--check-config", path], check=False)
    msg = res.stderr.strip()
    ok = res.returncode == 2 and path in msg and want_field in msg
    if want_line is not None:   # the 1-based line holding this text
        line = next(i + 1 for i, l in enumerate(text.splitlines()) if want_line in l)
        ok = ok and f"{path}:{line}:" in msg
    r.check(ok, f"{name}: rc={res.returncode} {msg}")
    os.unlink(path)


res = sh([swlib.SWITCH, "--check-config", swlib.write_config(GOOD)], check=False)
r.check(res.returncode == 0 and "config OK" in res.stdout, "good config accepted")
res = sh([swlib.SWITCH, "--check-config", os.path.join(swlib.ROOT, "configs/demo.yaml")], check=False)
r.check(res.returncode == 0, f"configs/demo.yaml accepted: {res.stdout.strip()}{res.stderr.strip()}")

case("unknown field", GOOD.replace("idle_sleep_us: 20", "idle_sleep_usec: 20"), "switch.idle_sleep_usec: unknown field")
case("bad speed", GOOD.replace("speed: 10G", "speed: fast", 1), "ports[0].speed", "speed: fast")
case("missing ports", "switch: { mode: l3 }\n", "ports: expected a list")
case("duplicate port name", GOOD.replace("name: p1", "name: p0"), "ports[1].name")
case("bad ipv4", GOOD.replace("10.0.1.1/24", "10.0.1.300/24"), "ports[0].ipv4")
case("tag out of range", GOOD.replace("tag_map: { 24: 3", "tag_map: { 64: 3"), "qos.tag_map (key)")
case("priority out of range", GOOD.replace("24: 3,", "24: 9,"), "qos.tag_map[24]")
case("lossy priority lossless", GOOD.replace("lossy_priority: 0", "lossy_priority: 3"), "qos.lossy_priority")
case("rule names unknown port", GOOD.replace("in: [p0], out: [p1]", "in: [p9], out: [p1]"), "rewrite.rules[0].in[0]")
case("rule new_tag out of range", GOOD.replace("new_tag: 26, priority", "new_tag: 99, priority"), "rewrite.rules[0].new_tag")
case("rule without new_tag", GOOD.replace("new_tag: 26, priority: 10", "priority: 10"), "rewrite.rules[0].new_tag")
case("bad scheduler", GOOD.replace('mac: "02:00:00:00:01:01"', 'mac: "02:00:00:00:01:01", scheduler: { mode: fifo }'), "ports[0].scheduler.mode")
case("shaper above speed", GOOD.replace('mac: "02:00:00:00:01:01"', 'mac: "02:00:00:00:01:01", shaper: 40G'), "ports[0].shaper")
case("buffer too small for headroom", GOOD + "buffer:\n  total_bytes: 64K\n  lossless: { headroom: 32K }\n", "buffer")
case("xon hysteresis above xoff", GOOD + "buffer:\n  lossless: { xoff: 8K, xon_hysteresis: 64K }\n", "buffer")
case("yaml syntax", GOOD + "  - [unclosed\n", "YAML syntax")
case("route via outside subnet", GOOD + "routes:\n  - { prefix: 10.9.0.0/16, port: p1, via: 10.0.1.9 }\n", "routes")
case("route host bits", GOOD + "routes:\n  - { prefix: 10.9.0.1/16, port: p1 }\n", "routes[0].prefix")
case("workers", GOOD.replace("workers: 1", "workers: 0"), "switch.workers")
case("hairpin", GOOD.replace("workers: 1", "workers: 1\n  hairpin: maybe"), "switch.hairpin")
case("include missing", "include: nope.yaml\n" + GOOD, "include: expected a readable rules file", "include:")

# A config error stops a real start before EAL does anything.
bad = swlib.write_config(GOOD.replace("speed: 10G", "speed: -1", 1))
res = sh([swlib.SWITCH, "--no-huge", "--no-pci", "--", "--config", bad], check=False)
r.check(res.returncode == 2 and "ports[0].speed" in res.stderr, f"real start refuses a bad config: {res.stderr.strip()}")
# A device that does not exist is named, with what exists.
res = sh([swlib.SWITCH, "-l", "0,1", "--no-huge", "--no-pci", "--no-shconf", "-m", "256", "--file-prefix", "badcfg",
          "--vdev", "net_null0", "--vdev", "net_null1", "--", "--config", swlib.write_config(GOOD)], check=False)
r.check(res.returncode != 0 and "net_af_packet0" in res.stderr and "net_null0" in res.stderr,
        f"missing DPDK device named with the available ones: {res.stderr.strip()[-200:]}")
r.done()
