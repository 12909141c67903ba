#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs one system test script: skips (exit 77) unless root with network
namespace support and scapy; otherwise execs the script."""
import os
import subprocess
import sys

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
os.chdir(os.path.dirname(os.path.abspath(sys.argv[1])))
sys.path.insert(0, os.getcwd())
os.execv(sys.executable, [sys.executable, sys.argv[1]])
