#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/netns-topo.sh's command line (suite 'unit', no root): -h and --help
print the usage on stdout and exit 0; an unknown command or option, a bad N
or PREFIX, or a fourth argument prints the usage on stderr and exits 2. None
of these runs a command: `ip`, `ethtool` and `sysctl` are stand-ins on PATH
that log their arguments, and the log must stay empty (a valid `up` fills it,
which shows the stand-ins are the ones the script runs).

  netns_topo_test.py SOURCE_DIR
"""
import os
import stat
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish

script = os.path.join(sys.argv[1], "tools", "netns-topo.sh")

with tempfile.TemporaryDirectory(prefix="netns-topo-test-") as tmp:
    log = os.path.join(tmp, "calls.log")
    for tool in ("ip", "ethtool", "sysctl"):
        path = os.path.join(tmp, tool)
        with open(path, "w") as f:
            f.write(f'#!/bin/sh\necho "{tool} $*" >> "{log}"\n')
        os.chmod(path, stat.S_IRWXU)
    env = dict(os.environ, PATH=tmp + os.pathsep + os.environ.get("PATH", ""))

    def run(*args):
        if os.path.exists(log):
            os.remove(log)
        p = subprocess.run(["bash", script, *args], capture_output=True, text=True, env=env, timeout=30)
        calls = open(log).read().splitlines() if os.path.exists(log) else []
        return p, calls

    for args in (["--help"], ["-h"], ["up", "--help"], ["up", "2", "x", "-h"]):
        p, calls = run(*args)
        ok = p.returncode == 0 and p.stdout.startswith("Usage:") and not p.stderr and not calls
        check(f"{' '.join(args)}: usage on stdout, exit 0, no command run", ok,
              "" if ok else f"exit {p.returncode}, out {p.stdout[:60]!r}, err {p.stderr[:80]!r}, calls {calls[:2]}")

    for args, says in ((["help"], "unknown command 'help'"), (["--bogus"], "unknown option '--bogus'"),
                       (["up", "2", "-x"], "unknown option '-x'"), (["up", "two"], "N: expected"),
                       (["up", "0"], "N: expected"), (["up", "17"], "N: expected"),
                       (["up", "2", "a/b"], "PREFIX: expected"), (["up", "2", "abcdefghijklm"], "PREFIX: expected"),
                       (["down", "2", "pfc", "more"], "too many arguments")):
        p, calls = run(*args)
        ok = p.returncode == 2 and says in p.stderr and "Usage:" in p.stderr and not p.stdout and not calls
        check(f"{' '.join(args)}: \"{says}\" and the usage on stderr, exit 2, no command run", ok,
              "" if ok else f"exit {p.returncode}, stderr {p.stderr[:100]!r}, calls {calls[:2]}")

    p, calls = run("up", "2", "tt")
    ok = (p.returncode == 0 and "ip netns add ttsw" in calls and "ip netns add tth1" in calls
          and calls.index("ip netns del ttsw") < calls.index("ip netns add ttsw"))
    check("a valid 'up 2 tt' runs the stand-ins: deletes, then adds ttsw, tth0, tth1", ok,
          "" if ok else f"exit {p.returncode}, {p.stderr[:100]!r}, calls {calls[:4]}")
finish()
