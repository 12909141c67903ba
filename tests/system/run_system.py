#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs one system test script: skips (exit 77) unless root with network
namespace support and scapy; otherwise runs the script and then checks that
it cleaned up after itself, failing the test if not:
  * the script runs with TMPDIR set to a fresh directory, which must be empty
    again when it ends (so nothing it made with tempfile is left behind);
  * every network namespace it created (swlib lists them in the file named by
    $PFC_NETNS_MANIFEST) must be gone;
  * the script must not name /tmp itself (a file there escapes the check).
Whatever is found is listed, then removed, so one bad run does not leak into
the next."""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

if os.geteuid() != 0:
    print("SKIP: system tests need root (network namespaces, raw sockets)")
    sys.exit(77)
try:
    import scapy  # noqa: F401
except ImportError:
    print("SKIP: python3-scapy is not installed (tools/install-deps.sh installs it)")
    sys.exit(77)
if subprocess.run(["ip", "netns", "list"], capture_output=True).returncode != 0:
    print("SKIP: 'ip netns' does not work here")
    sys.exit(77)

script = os.path.abspath(sys.argv[1])
problems = []
with open(script) as f:
    for n, line in enumerate(f, 1):
        if re.search(r"['\"]/tmp\b", line):
            problems.append(f"{os.path.basename(script)}:{n} names /tmp (use swlib.run_file): {line.strip()}")

work = tempfile.mkdtemp(prefix="pfcsw-systest-")
tmp = os.path.join(work, "tmp")
os.mkdir(tmp)
manifest = os.path.join(work, "netns")
env = dict(os.environ, TMPDIR=tmp, PFC_NETNS_MANIFEST=manifest)
child = subprocess.Popen([sys.executable, script], cwd=os.path.dirname(script), env=env)
# A meson timeout signals us: pass it on and still check and clean up.
signal.signal(signal.SIGTERM, lambda *a: child.send_signal(signal.SIGTERM))
rc = None
while rc is None:
    try:
        rc = child.wait()
    except InterruptedError:
        pass

for root, dirs, files in os.walk(tmp):
    for name in dirs + files:
        problems.append("left behind: " + os.path.join(root, name))
if os.path.exists(manifest):
    live = set(subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split())
    with open(manifest) as f:
        for name in dict.fromkeys(f.read().split()):
            if name in live:
                problems.append("network namespace left behind: " + name)
                subprocess.run(["ip", "netns", "del", name], capture_output=True)
shutil.rmtree(work, ignore_errors=True)

for p in problems:
    print("FAIL cleanup: " + p, flush=True)
if rc < 0:   # killed by a signal: report it as a shell would
    rc = 128 - rc
if problems and rc in (0, 77):
    rc = 1
sys.exit(rc)
