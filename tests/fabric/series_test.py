#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""fabric.series_start (suite 'fabric', virtual clock): the time series
start where the file says, and say what they said before from there on.

A 3-to-1 incast starts at 0.5 ms; the same file runs without series_start
and with series_start 1ms (a whole number of 100us bins). Then:
  * fct.csv is byte-identical and results.json too but for the file's name
    (the series change nothing else);
  * flows.csv, ports.csv and drops.csv hold exactly the full run's rows after
    1 ms, in the same order: the first bin's counts start from the counters
    at 1 ms, not from 0, although traffic ran before it;
  * with series_start 1050us (not on a bin boundary) the first row is at
    1.150 ms and flows.csv has 20 bins a flow (1.05 to 3 ms: the last one
    ends past the run's end, as without series_start when the duration is
    not a whole number of bins);
  * a series_start at or past the run's end, or not a time, is refused
    before anything runs, naming the file, line and field.

  series_test.py BUILD_DIR SOURCE_DIR
"""
import os
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish  # noqa: E402
from pfclib.fabric_files import flow, incast_3to1, write  # noqa: E402

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
cfg = os.path.abspath(os.path.join(src, "configs/fabric"))
FLOWS = [flow(f"f{i}", f"H{i}", "H4", dscp=1, prio=1, rate="10G", bytes=1_500_000, start="500us")
         for i in (1, 2, 3)]


def run(tmp, name, **extra):
    spec = incast_3to1(cfg, {"clock": "virtual", "duration": "3ms", "bin": "100us", **extra}, FLOWS,
                       switch=os.path.join(cfg, "switch-lossless.yaml"))
    path = write(os.path.join(tmp, f"{name}.yaml"), spec)
    out = os.path.join(tmp, name)
    p = subprocess.run([fabric, "--fabric", path, "--out", out], capture_output=True, text=True,
                       timeout=120)
    return p, out


def lines(out, name):
    with open(os.path.join(out, name)) as f:
        return f.read().splitlines()


def after(rows, t_ms):
    return [r for r in rows[1:] if float(r.split(",", 1)[0]) > t_ms]


with tempfile.TemporaryDirectory(prefix="fabric-series-") as tmp:
    p, full = run(tmp, "full")
    check("the run without series_start succeeds", p.returncode == 0, p.stderr[-400:])
    p, part = run(tmp, "part", series_start="1ms")
    check("the run with series_start 1ms succeeds", p.returncode == 0, p.stderr[-400:])
    check("fct.csv: byte-identical", lines(full, "fct.csv") == lines(part, "fct.csv"))
    # results.json names the file it ran: all else is the same.
    same = [a for a, b in zip(lines(full, "results.json"), lines(part, "results.json"))
            if a == b or '"fabric": ' in a]
    check("results.json: the same but for the file's name",
          len(same) == len(lines(full, "results.json")) == len(lines(part, "results.json")))
    for name in ("flows.csv", "ports.csv", "drops.csv"):
        a, b = lines(full, name), lines(part, name)
        check(f"{name}: the same header", a[0] == b[0], f"{a[0]!r} against {b[0]!r}")
        check(f"{name}: the full run's rows after 1 ms, and only those ({len(b) - 1} rows)",
              after(a, 1.0) == b[1:] and len(b) > 1,
              f"first rows {b[1:3]} against {after(a, 1.0)[:2]}")
        check(f"{name}: the first row at 1.100 ms", b[1].startswith("1.100000,"), b[1])
    # Traffic before 1 ms: what the first bin counts is its own.
    busy = [r for r in lines(part, "flows.csv")[1:] if not r.endswith(",0.000000")]
    check("flows moved in the first bins", any(r.startswith("1.100000,") for r in busy))

    p, odd = run(tmp, "odd", series_start="1050us")
    check("the run with series_start 1050us succeeds", p.returncode == 0, p.stderr[-400:])
    rows = lines(odd, "flows.csv")[1:]
    check("flows.csv starts at 1.150 ms", rows[0].startswith("1.150000,f1,"), rows[0])
    check("20 bins a flow (1.05 to 3 ms, the last one past the end)", len(rows) == 3 * 20, len(rows))
    check("ports.csv starts at 1.150 ms", lines(odd, "ports.csv")[1].startswith("1.150000,"))

    p, _ = run(tmp, "late", series_start="3ms")
    check("series_start at the run's end is refused", p.returncode != 0)
    want = "late.yaml:1: fabric.series_start: expected a time before fabric.duration (3000000 ns)"
    check("the error names the file, line and field", want in p.stderr, p.stderr[-400:])
    p, _ = run(tmp, "junk", series_start="abc")
    check("series_start: abc is refused with the field named",
          p.returncode != 0 and "junk.yaml:1: fabric.series_start: expected a time" in p.stderr,
          p.stderr[-400:])
finish()
