#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""pfcfabric --plot (suite 'fabric', virtual clock): a run with a link
taken down and up draws a PNG of sane size, and what the plot marks comes
from the run: the event lines are at the fabric file's event times, the loss
row (drops.csv) counts the lossy frames the congested switch dropped and
the frames the down link lost, in the bins they were lost in, adding up to
the verdict's totals; flows with equal series are named as such and every
flow has its own style. --plot with --check is a usage error (2); a plot
that cannot be written exits 1 with the results kept; results without
drops.csv (an older pfcfabric) still plot.

  plot_test.py BUILD_DIR SOURCE_DIR
"""
import os
import struct
import subprocess
import sys
import tempfile

import fabric_plot
from pfclib.checks import check, finish
from pfclib.fabric_files import flow, incast_3to1, write
from pfclib.fabric_results import results
from pfclib.fabric_timeline import drops, event_markers, same_series

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
cfg = os.path.abspath(os.path.join(src, "configs/fabric"))

DOWN_MS, UP_MS = 2.0, 3.0
# ab and ba mirror each other on A (equal series at the receiver); bulk1,
# bulk2 (lossless) and lossy overload B -> H4, whose lossy queue then drops.
FAB = incast_3to1(cfg, {"clock": "virtual", "duration": "4ms", "bin": "100us"},
                  [flow("ab", "H1", "H2", dscp=1, prio=1, rate="2G"),
                   flow("ba", "H2", "H1", dscp=1, prio=1, rate="2G"),
                   flow("bulk1", "H1", "H4", dscp=1, prio=1, rate="3G"),
                   flow("bulk2", "H2", "H4", dscp=1, prio=1, rate="3G"),
                   flow("lossy", "H3", "H4", dscp=0, prio=0, rate="10G")],
                  switch=os.path.join(cfg, "switch-lossless.yaml"),
                  events=[{"at": f"{DOWN_MS:g}ms", "link": ["A", "H3"], "state": "down"},
                          {"at": f"{UP_MS:g}ms", "link": ["A", "H3"], "state": "up"}])


def png_size(path):
    """(width, height) of a PNG, or None when it is not one."""
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def run(*args):
    p = subprocess.run([fabric, *args], capture_output=True, text=True, timeout=120)
    print(p.stdout + p.stderr)
    return p


with tempfile.TemporaryDirectory(prefix="fabric-plot-") as tmp:
    path = write(os.path.join(tmp, "plot.yaml"), FAB)
    out, png = os.path.join(tmp, "out"), os.path.join(tmp, "run.png")
    p = run("--fabric", path, "--out", out, "--plot", png)
    check("the run with --plot succeeds", p.returncode == 0, f"exit {p.returncode}")
    check("it says where the plot is", f"pfcfabric: plot in {png}" in p.stdout)
    size = png_size(png) if os.path.exists(png) else None
    check("the plot is a PNG", size is not None)
    if size:
        check("of sane size (one column, four rows)", 500 <= size[0] <= 2000 and 800 <= size[1] <= 3000, str(size))
        check("with something drawn in it", os.path.getsize(png) > 30_000, f"{os.path.getsize(png)} bytes")

    # Event markers: the fabric file's events, at their times.
    marks = event_markers(out)
    timeline = [(m.t_ms, m.label) for m in marks if m.source == "timeline"]
    check("a marker at each event's time, labelled", timeline == [(DOWN_MS, "link A-H3 down"), (UP_MS, "link A-H3 up")],
          str(timeline))

    # The loss row.
    s = drops(out)
    check("drops.csv is written", s is not None)
    if s:
        lost = results(out)["verdict"]["lost"]
        check("a sample per bin", len(s["t_ms"]) == 40 and s["t_ms"][0] == 0.1 and s["t_ms"][-1] == 4.0,
              f"{len(s['t_ms'])} samples")
        check("lossy frames lost over time", sum(s["lossy"]) > 0)
        check("as many as the verdict's", sum(s["lossy"]) == sum(lost["lossy_prios"].values()),
              f"{sum(s['lossy'])} vs {lost['lossy_prios']}")
        check("no lossless frame lost", sum(s["lossless"]) == 0 == sum(lost["lossless_prios"].values()))
        down = s["link_down"] or []
        check("the down link's losses, as many as the verdict's", sum(down) > 0 and sum(down) == lost["link_down"],
              f"{sum(down)} vs {lost['link_down']}")
        when = [t for t, n in zip(s["t_ms"], down) if n]
        check("in the bins after the link went down", when and all(DOWN_MS < t <= UP_MS for t in when), str(when))

    # Distinguishable series.
    check("equal series are named", same_series({"a": ([1, 2], [3, 3]), "b": ([1, 2], [3, 3]),
                                                 "c": ([1, 2], [3, 4])}) == {"b": "a"})
    styles = [fabric_plot.flow_style(i) for i in range(12)]
    keys = [(x["color"], x["linestyle"], x["marker"]) for x in styles]
    check("every flow has its own style", len(set(keys)) == len(keys))
    check("neighbours differ in colour, line and marker",
          all(all(a != b for a, b in zip(keys[i], keys[i + 1])) for i in range(len(keys) - 1)))
    flows = fabric_plot.read_flows(out)
    same = same_series(flows)
    check("the run's mirrored flows are equal series, said once", same == {"ba": "ab"}, str(same))

    # Errors.
    p = run("--fabric", path, "--out", os.path.join(tmp, "chk"), "--check", "--plot", png)
    check("--plot with --check: usage error (2)", p.returncode == 2, f"exit {p.returncode}")
    out2 = os.path.join(tmp, "out2")
    p = run("--fabric", path, "--out", out2, "--plot", os.path.join(tmp, "no-such-dir", "x.png"))
    check("a plot that cannot be written: exit 1", p.returncode == 1, f"exit {p.returncode}")
    check("saying so, and where the results are", f"--plot: no plot; the results are in {out2}" in p.stderr)
    check("with the results kept", os.path.exists(os.path.join(out2, "results.json")))

    # Results of an older pfcfabric (no drops.csv) still plot.
    os.remove(os.path.join(out, "drops.csv"))
    old_png = os.path.join(tmp, "old.png")
    q = subprocess.run([sys.executable, fabric_plot.__file__, out, "-o", old_png], capture_output=True, text=True,
                       timeout=120)
    print(q.stdout + q.stderr)
    check("without drops.csv: still plotted", q.returncode == 0 and png_size(old_png) is not None)

# The pause row: a switch egress its peer paused (red), and a host its switch
# paused (the port facing it pausing its peer: blue), each on its lossless
# priority; a lossy priority's pauses are not drawn.
ports = {("A", "B", 1): [(0.1, 1, 0, 0), (0.2, 0, 0, 0)], ("A", "H1", 1): [(0.1, 0, 1, 0), (0.2, 1, 1, 0)],
         ("A", "H1", 0): [(0.1, 0, 1, 0), (0.2, 0, 1, 0)]}
rows = fabric_plot.pause_rows(ports, 0, {("A", "H1"): "H1"})
check("hosts paused by their switch get a row of their own", rows == [
    ("A->B q1", [(0.0, 0.1)], fabric_plot.PAUSED_SWITCH), ("A->H1 q1", [(0.1, 0.1)], fabric_plot.PAUSED_SWITCH),
    ("H1->A q1", [(0.0, 0.2)], fabric_plot.PAUSED_HOST)], str(rows))
finish()
