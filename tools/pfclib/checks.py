# SPDX-License-Identifier: BSD-3-Clause
"""Named checks for the fabric suite's scripts (tests/fabric): each prints
ok/FAIL and is counted; running a tool, tshark's decode of a capture, a
file written for a run; the exit with the one plain closing line."""
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


def write_file(directory, name, text):
    """A fabric file (or any text) written into `directory`; its path."""
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def tshark(pcap, fields, display_filter):
    """tshark's decode of a capture: one list of the `fields` a frame
    matching `display_filter`."""
    out = subprocess.run(["tshark", "-r", pcap, "-Y", display_filter, "-T", "fields", "-E", "separator=,"]
                         + sum((["-e", f] for f in fields), []), capture_output=True, text=True)
    return [line.split(",") for line in out.stdout.splitlines() if line]


def finish():
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    sys.exit(1 if failures else 0)
