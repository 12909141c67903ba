#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: configs are validated completely before anything starts.
Each broken config makes `pfcswitch --check-config` (and a real start) exit
non-zero with an error naming the file, the line and the field. Also: what
--check-config says a config needs from EAL (memory, --vdev devices), the
usage when EAL options lack their `--`, and `pfcctl load` with relative
paths from another directory than the switch's."""
import json
import os
import subprocess
import tempfile
import time

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
    return msg


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
case("route via outside subnet", GOOD + "routes:\n  - { prefix: 10.9.0.0/16, port: p1, via: 10.0.1.9 }\n",
     "routes[0].via: expected a gateway inside port p1's subnet", "via: 10.0.1.9")
case("route host bits", GOOD + "routes:\n  - { prefix: 10.9.0.1/16, port: p1 }\n", "routes[0].prefix")
case("workers", GOOD.replace("workers: 1", "workers: 0"), "switch.workers")
case("hairpin", GOOD.replace("workers: 1", "workers: 1\n  hairpin: maybe"), "switch.hairpin")
case("key given twice", GOOD.replace("speed: 10G", "speed: 10G, speed: 25G", 1), "ports[0].speed: expected each key once",
     "speed: 25G")
case("overlapping subnets", GOOD.replace("10.0.2.1/24", "10.0.0.1/16"), "ports[1].ipv4: expected a subnet apart from port p0",
     "10.0.0.1/16")
case("numeric port name", GOOD.replace("name: p1", 'name: "1"'), "ports[1].name: expected a name that is not a number",
     'name: "1"')
case("missing device", GOOD.replace("device: net_af_packet1, ", ""), "ports[1].device: expected", "name: p1")
case("empty file", "# nothing here\n", "(document): expected a map", "# nothing here")
case("dwrr quantum count", GOOD.replace("speed: 10G", "speed: 10G, scheduler: { mode: dwrr, quantum: [1500, 1500] }", 1),
     "(got a list of 2)")
RULES = swlib.write_config("\nqos:\n  lossless: [3]\n")
msg = case("section in config and include", f"include: {RULES}\n" + GOOD, "qos: expected the section in one file only",
           "qos:")
r.check(f"{RULES}:2" in msg, f"the doubled section names the include's line too: {msg}")
os.unlink(RULES)
case("include missing", "include: nope.yaml\n" + GOOD, "include: expected a readable rules file", "include:")

# What the config needs from EAL: memory and the --vdev devices.
good = swlib.write_config(GOOD)
res = sh([swlib.SWITCH, "--check-config", good], check=False)
r.check("memory: needs" in res.stdout and "MB of EAL memory" in res.stdout, f"memory printed: {res.stdout.strip()}")
r.check("expects EAL --vdev for: net_af_packet0, net_af_packet1" in res.stdout, "expected vdevs printed")
# 3 ports, 8M in 128-byte cells: more than -m 256 under --no-huge.
BIG = GOOD.replace("ports:\n", "ports:\n  - { name: p2, device: net_af_packet2, ipv4: 10.0.3.1/24, speed: 10G }\n") + \
    "buffer:\n  total_bytes: 8M\n"
big = swlib.write_config(BIG)
res = sh([swlib.SWITCH, "--check-config", big, "--memory-mb", "256"], check=False)
r.check(res.returncode == 2 and "--memory-mb gives 256 MB" in res.stderr and "start EAL with -m 3" in res.stderr,
        f"check-config --memory-mb too small: {res.stderr.strip()}")
res = sh([swlib.SWITCH, "--no-huge", "-m", "256", "--", "--check-config", big], check=False)
r.check(res.returncode == 2 and "EAL -m gives 256 MB" in res.stderr, f"check-config reads EAL -m: {res.stderr.strip()}")
res = sh([swlib.SWITCH, "--no-huge", "-m", "512", "--", "--check-config", big], check=False)
r.check(res.returncode == 0, f"check-config with enough memory: {res.stderr.strip()}")
# A real start says the same before EAL takes the memory.
res = sh([swlib.SWITCH, "-l", "0,1", "--no-huge", "--no-pci", "--no-shconf", "-m", "256", "--file-prefix", "badmem",
          "--", "--config", big], check=False)
r.check(res.returncode == 2 and "start EAL with -m 3" in res.stderr and "EAL:" not in res.stderr,
        f"start refuses too little memory with the -m it needs: {res.stderr.strip()}")
os.unlink(big)

# EAL options without `--`: the full usage, with the example.
res = sh([swlib.SWITCH, "-l", "0,1", "--no-huge", "--config", good], check=False)
r.check(res.returncode == 2 and "EAL options go before a `--`" in res.stderr and "-- --config sw.yaml" in res.stderr,
        f"missing -- explained: {res.stderr.strip()[:300]}")
res = sh([swlib.SWITCH, "--help"], check=False)
r.check(res.returncode == 0 and "[EAL options] --" in res.stdout and "--vdev" in res.stdout and "Example" in res.stdout,
        "--help shows the EAL part, -- and an example")

# A config error stops a real start before EAL does anything.
bad = swlib.write_config(GOOD.replace("speed: 10G", "speed: -1", 1))
res = sh([swlib.SWITCH, "--no-huge", "--no-pci", "--", "--config", bad], check=False)
r.check(res.returncode == 2 and "ports[0].speed" in res.stderr, f"real start refuses a bad config: {res.stderr.strip()}")
# A device that does not exist is named, with what exists.
res = sh([swlib.SWITCH, "-l", "0,1", "--no-huge", "--no-pci", "--no-shconf", "-m", "256", "--file-prefix", "badcfg",
          "--vdev", "net_null0", "--vdev", "net_null1", "--", "--config", swlib.write_config(GOOD)], check=False)
r.check(res.returncode != 0 and "port p0" in res.stderr and "'net_af_packet0'" in res.stderr and "net_null0" in res.stderr
        and "--vdev net_af_packet0," in res.stderr,
        f"missing DPDK device named with its port, the available ones and the hint: {res.stderr.strip()[-300:]}")

# Relative paths: the switch starts in its directory with a relative config
# (and include); pfcctl runs elsewhere and loads a file relative to its own
# working directory.
with tempfile.TemporaryDirectory() as swdir, tempfile.TemporaryDirectory() as ctldir:
    with open(os.path.join(swdir, "rules.yaml"), "w") as f:
        f.write("rewrite: { rules: [ { tag: \"*\", in: [p0], out: [p1], new_tag: 5 } ] }\n")
    with open(os.path.join(swdir, "sw.yaml"), "w") as f:
        f.write("switch: { idle_sleep_us: 1000 }\ninclude: rules.yaml\nports:\n"
                "  - { name: p0, device: net_ring0, ipv4: 10.0.1.1/24, speed: 10G, mac: \"02:00:00:00:01:01\" }\n"
                "  - { name: p1, device: net_ring1, ipv4: 10.0.2.1/24, speed: 10G, mac: \"02:00:00:00:02:01\" }\n")
    with open(os.path.join(ctldir, "new.yaml"), "w") as f:
        f.write("rewrite: { rules: [ { tag: \"*\", in: [p0], out: [p1], new_tag: 7 }, { tag: \"*\", in: [p1], out: [p0], new_tag: 7 } ] }\n")
    log = tempfile.NamedTemporaryFile("w+", suffix=".log", delete=False)
    sw = subprocess.Popen([swlib.SWITCH, "-l", "0,1", "--no-huge", "--no-pci", "--no-shconf", "-m", "256",
                           "--file-prefix", "relpath", "--vdev", "net_ring0", "--vdev", "net_ring1", "--",
                           "--config", "sw.yaml"], cwd=swdir, stdout=log, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.time() + 30
        while time.time() < deadline and sw.poll() is None and "pfcswitch: forwarding" not in open(log.name).read():
            time.sleep(0.1)
        r.check("pfcswitch: forwarding" in open(log.name).read(), "switch started with a relative config")
        res = sh([swlib.PFCCTL, "--file-prefix", "relpath", "load", "new.yaml"], check=False, cwd=ctldir)
        r.check(res.returncode == 0 and "loaded " + os.path.join(ctldir, "new.yaml") in res.stdout and
                "2 rules" in res.stdout,
                f"pfcctl load with relative paths from another directory: {res.stdout.strip()} {res.stderr.strip()}")
        res = sh([swlib.PFCCTL, "--file-prefix", "relpath", "info"], check=False, cwd=ctldir)
        info = json.loads(res.stdout) if res.returncode == 0 else {}
        r.eq(info.get("config"), os.path.join(swdir, "sw.yaml"), "switch records its config absolute")
    finally:
        sw.terminate()
        sw.wait(20)
        os.unlink(log.name)
r.done()
