#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The four programs' command lines (suite 'unit', no EAL started): each
prints "<name> <version>" for --version and exits 0, and exits 2 on a usage
error (an unknown option, a missing subcommand or option), with a message.

  cli_test.py BUILD_DIR SOURCE_DIR
"""
import os
import re
import subprocess
import sys

from pfclib.checks import check, finish  # noqa: E402

build, src = sys.argv[1], sys.argv[2]
version = re.search(r"version: '([^']+)'", open(os.path.join(src, "meson.build")).read()).group(1)
for name, rel in (("pfcswitch", "dataplane/pfcswitch/pfcswitch"), ("pfcctl", "dataplane/pfcctl/pfcctl"),
                  ("pfcfabric", "dataplane/emulator/pfcfabric"), ("pfc-tagger", "ctrl/tagger/pfc-tagger")):
    exe = os.path.join(build, rel)
    p = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
    check(f"{name} --version prints '{name} {version}', exit 0",
          p.returncode == 0 and p.stdout.strip() == f"{name} {version}", f"{p.returncode} {p.stdout!r} {p.stderr!r}")
    p = subprocess.run([exe, "--no-such-option"], capture_output=True, text=True, timeout=30)
    check(f"{name} --no-such-option: exit 2 with a message", p.returncode == 2 and (p.stdout + p.stderr).strip() != "",
          f"{p.returncode} {(p.stdout + p.stderr).strip()[:200]}")

def run(rel, *args):
    return subprocess.run([os.path.join(build, rel), *args], capture_output=True, text=True, timeout=30)


p = run("dataplane/emulator/pfcfabric", "--help")
check("pfcfabric --help names the program in its usage line", "Usage: pfcfabric [OPTIONS]" in p.stdout,
      p.stdout[:400])
p = run("dataplane/pfcswitch/pfcswitch", "--help")
check("pfcswitch --help lists --no-shconf (the tutorial uses it)", "--no-shconf (" in p.stdout, p.stdout[-900:])
check("pfcswitch --help says the exit summary prints with --stats-json too",
      "summary is printed either way" in p.stdout, p.stdout[:900])
# A view of pfc, queue or pfcwd misspelt: exit 2 naming the views, with a
# guess, before any connection is tried.
for args, want in ((["pfc", "counter"], "pfcctl pfc: 'counter' is not one of its views (expected: counters); "
                                        "did you mean 'counters'?"),
                   (["queue", "water"], "did you mean 'watermark'?"),
                   (["queue"], "pfcctl queue: expected a view: counters, watermark"),
                   (["pfcwd", "nonsense"], "pfcctl pfcwd: 'nonsense' is not one of its views (expected: stats)")):
    p = run("dataplane/pfcctl/pfcctl", "--file-prefix", "cli-test-none", *args)
    check(f"pfcctl {' '.join(args)}: exit 2, '{want}'", p.returncode == 2 and want in p.stderr,
          f"{p.returncode} {p.stderr.strip()[:300]}")
finish()
