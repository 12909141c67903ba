#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""A link that goes down ends the pauses it carried (suite 'fabric',
virtual clock; issue 29 item 2). The 3-to-1 incast of incast-3to1.yaml: B
pauses A on priority 1; the A-B link goes down at 950 us, while A is paused,
and comes back at 1150 us, after B has drained and sent an XON that the
dead link lost. A real port forgets a received pause when its link drops:
A's egress to B resumes as soon as the link is back (the flows' rates in
the next bin), and A's port counts pause_cleared_link_down. Before, A stayed
paused until the pause expired (0xffff quanta at 40 Gb/s: 0.84 ms), and the
three flows got nothing for the rest of that time.

  link_flap_test.py BUILD_DIR SOURCE_DIR
"""
import csv
import os
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish
from pfclib.fabric_results import results

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
cfg = os.path.abspath(os.path.join(src, "configs/fabric"))

FAB = f"""fabric: {{ clock: virtual, duration: 2ms, bin: 50us, seed: 1 }}
include: {cfg}/incast-3to1.yaml
switch: {{ config: {cfg}/switch-lossless.yaml }}
flows:
  - {{ name: f1, from: H1, to: H4, dscp: 1, prio: 1 }}
  - {{ name: f2, from: H2, to: H4, dscp: 1, prio: 1 }}
  - {{ name: f3, from: H3, to: H4, dscp: 1, prio: 1 }}
events:
  - {{ at: 950us, link: [A, B], state: down }}
  - {{ at: 1150us, link: [A, B], state: up }}
"""

with tempfile.TemporaryDirectory(prefix="fabric-flap-") as tmp:
    path = os.path.join(tmp, "flap.yaml")
    with open(path, "w") as f:
        f.write(FAB)
    out = os.path.join(tmp, "out")
    p = subprocess.run([fabric, "--fabric", path, "--out", out], capture_output=True, text=True, timeout=120)
    check("the run succeeds", p.returncode == 0, p.stderr[-300:] if p.returncode else "")
    r = results(out)
    a_b = next(q for q in r["switches"]["A"]["ports"] if q["name"] == "B")
    check("A's port to B ended that pause at the link-down (pause_cleared_link_down)",
          a_b.get("pause_cleared_link_down") == 1, str(a_b.get("pause_cleared_link_down")))
    after = [float(row["gbps"]) for row in csv.DictReader(open(os.path.join(out, "flows.csv")))
             if 1.2 <= float(row["t_ms"]) <= 1.4]
    check("the flows resume in the first bin after the link is back (1.2-1.4 ms)",
          len(after) == 15 and min(after) > 1.0, str(after))
    check("no lossless drop (frames handed to the dead link are counted as link_down)",
          r["lossless_drops"] == 0 and r["verdict"]["lost"]["link_down"] > 0, str(r["verdict"]["lost"]))
finish()
