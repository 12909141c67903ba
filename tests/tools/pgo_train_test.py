#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/pgo_train.py (suite 'unit'): the training fabrics of the PGO build
(tools/build-pgo.sh) are written, each passes pfcfabric --check, and each
has the traffic the training is for: RC flows under DCQCN, under HPCC with
the switches filling INT, and the HPCC simulator's conventions through
hpcc_import (dynamic thresholds, its ECMP hash). The same files a second
time: a build's profile does not depend on when it was made.

  pgo_train_test.py BUILD_DIR SOURCE_DIR
"""
import os
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish  # noqa: E402

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane", "emulator", "pfcfabric")
tool = os.path.join(src, "tools", "pgo_train.py")
with tempfile.TemporaryDirectory() as d:
    runs = []
    for sub in ("a", "b"):
        p = subprocess.run([sys.executable, tool, os.path.join(d, sub)], capture_output=True, text=True)
        check(f"pgo_train.py wrote its files ({sub})", p.returncode == 0, p.stderr)
        runs.append(p.stdout.split())
    files = runs[0]
    check("three training fabrics, one a line", len(files) == 3 and all(os.path.isfile(f) for f in files),
          str(files))
    # The files name their folder (the switch template, the converter's
    # inputs): the same but for that.
    def text(path, sub):
        return open(path).read().replace(os.path.join(d, sub), "OUT")
    same = [text(a, "a") == text(b, "b") for a, b in zip(runs[0], runs[1])]
    check("the same files a second time", len(runs[1]) == 3 and all(same), str(same))
    texts = [open(f).read() for f in files]
    check("DCQCN: RC flows with ECN and cc: dcqcn", texts[0].count("cc: dcqcn") > 100
          and "transport: rc" in texts[0])
    sw = open(os.path.join(d, "a", "train-switch-int.yaml")).read()
    check("HPCC: cc: hpcc flows and an int section on the switches",
          texts[1].count("cc: hpcc") > 50 and "train-switch-int.yaml" in texts[1]
          and "int: { priorities: [1] }" in sw)
    conv_sw = open(os.path.join(os.path.dirname(files[2]), "switch.yaml")).read()
    check("the simulator's conventions: converted flows, dynamic thresholds, its hash",
          texts[2].count("cc: dcqcn") > 50 and "xoff: dynamic" in conv_sw
          and "ecmp_hash_algorithm: hpcc" in conv_sw)
    for f in files:
        p = subprocess.run([fabric, "--fabric", f, "--out", os.path.join(d, "check"), "--check"],
                           capture_output=True, text=True)
        check(f"pfcfabric --check {os.path.relpath(f, d)}", p.returncode == 0,
              "" if p.returncode == 0 else p.stdout + p.stderr)
finish()
