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
finish()
