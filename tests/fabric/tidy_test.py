#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""pfcfabric is quiet and tidy (suite 'fabric', virtual clock): a run prints
no DPDK notice (telemetry's "No legacy callbacks" line; also with the
caller's own EAL options), shows its progress only when stderr is a
terminal, leaves no runtime
directory of its own file prefix in /var/run/dpdk, puts its heap on
transparent huge pages unless told not to (same results either way), and
prints a warning with file:line for a flow faster than its host's link and
for one that starts after the run's end, while still running.

  tidy_test.py BUILD_DIR SOURCE_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish  # noqa: E402
from pfclib.fabric_files import flow, incast_3to1, write  # noqa: E402

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
cfg = os.path.abspath(os.path.join(src, "configs/fabric"))

FAB = incast_3to1(cfg, {"clock": "virtual", "duration": "1ms", "bin": "250us"},
                  [flow("f1", "H1", "H4", rate="40G"), flow("f2", "H2", "H4", start="2ms")])

with tempfile.TemporaryDirectory(prefix="fabric-tidy-") as tmp:
    path = write(os.path.join(tmp, "tidy.yaml"), FAB)
    p = subprocess.run([fabric, "--fabric", path, "--out", os.path.join(tmp, "out")], capture_output=True,
                       text=True, env=dict(os.environ, PFCFABRIC_SHOW_EAL="1"), timeout=120)
    out = p.stdout + p.stderr
    print(out)
    check("the run succeeds", p.returncode == 0)
    check("no DPDK notice on the output", "TELEMETRY" not in out and "EAL:" not in out)
    prefix = re.search(r"--file-prefix (\S+)", out)
    check("the EAL arguments name its own file prefix", prefix is not None)
    if prefix:
        d = os.path.join("/var/run/dpdk", prefix.group(1))
        check(f"nothing left in {d}", not os.path.exists(d))
    check("a warning with file:line for the flow faster than its link",
          f"pfcfabric: warning: {path}:4: flows[0].rate: 40 Gb/s is more than H1's link (10 Gb/s)" in out)
    check("a warning with file:line for the flow that never starts",
          f"pfcfabric: warning: {path}:5: flows[1].start: 2000000 ns is not before the run's end" in out)
    # The heap on transparent huge pages (runtime/huge_pages.h: pfcfabric
    # starts itself again under glibc's tunable) unless THP is off or the
    # caller says no; the same results either way.
    with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
        thp = "[never]" not in f.read()
    with open(os.path.join(tmp, "out", "timing.json")) as f:
        check(f"timing.json: malloc_huge_pages is {thp} (THP {'on' if thp else 'never'})",
              json.load(f).get("malloc_huge_pages") is thp)
    p = subprocess.run([fabric, "--fabric", path, "--out", os.path.join(tmp, "out-4k")],
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PFCFABRIC_HUGE_PAGES="0"))
    check("PFCFABRIC_HUGE_PAGES=0: the run succeeds", p.returncode == 0, p.stderr[-300:])
    with open(os.path.join(tmp, "out-4k", "timing.json")) as f:
        check("PFCFABRIC_HUGE_PAGES=0: malloc_huge_pages is false",
              json.load(f).get("malloc_huge_pages") is False)
    same = all(open(os.path.join(tmp, "out", n), "rb").read() ==
               open(os.path.join(tmp, "out-4k", n), "rb").read()
               for n in ("results.json", "flows.csv", "ports.csv", "drops.csv"))
    check("huge pages or not: results byte-identical", same)
    p = subprocess.run([fabric, "--fabric", path, "--out", os.path.join(tmp, "out-bad")],
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PFCFABRIC_HUGE_PAGES="yes"))
    check("PFCFABRIC_HUGE_PAGES=yes: refused (exit 2), naming it and what it takes",
          p.returncode == 2 and "PFCFABRIC_HUGE_PAGES: expected 0" in p.stderr
          and "(got 'yes')" in p.stderr, p.stderr[-300:])
    # With the caller's own EAL options too (the rocev2 VM's real-clock
    # fabric gives them): still no DPDK notice.
    p = subprocess.run([fabric, "--no-huge", "--no-pci", "--no-shconf", "-m", "256", "--file-prefix",
                        f"tidy{os.getpid()}", "--", "--fabric", path, "--out",
                        os.path.join(tmp, "out2")], capture_output=True, text=True, timeout=120)
    out = p.stdout + p.stderr
    check("explicit EAL options: the run succeeds", p.returncode == 0, out[-300:])
    check("explicit EAL options: no DPDK notice", "TELEMETRY" not in out and "EAL:" not in out,
          "\n".join(x for x in out.splitlines() if "EAL" in x or "TELEMETRY" in x))
    subprocess.run(["rm", "-rf", f"/var/run/dpdk/tidy{os.getpid()}"])

    # Progress when stderr is a terminal (script(1) gives it one), and none
    # when it is not (the runs above).
    check("no progress line when stderr is not a terminal", " of 1.000 ms (" not in out)
    t = subprocess.run(["script", "-qec", f"{fabric} --fabric {path} --out {tmp}/out3", "/dev/null"],
                       capture_output=True, timeout=120)  # bytes: keep the carriage returns
    shown = b"\rpfcfabric: 0.250 of 1.000 ms (25%), " in t.stdout
    check("a progress line on a terminal, rewritten in place", shown,
          "" if shown else repr(t.stdout[-600:]))
finish()
