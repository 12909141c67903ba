# SPDX-License-Identifier: BSD-3-Clause
"""Named checks for the fabric suite's scripts (tests/fabric): each prints
ok/FAIL and is counted; running a tool; the exit with the one plain
closing line."""
import os
import subprocess
import sys

failures = []


def check(what, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + what + (f": {detail}" if detail else ""))
    if not ok:
        failures.append(what)


def run(args):
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        print(p.stdout, p.stderr)
    check("exit 0: " + " ".join(os.path.basename(a) for a in args[:3]), p.returncode == 0)
    return p


def finish():
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    sys.exit(1 if failures else 0)
