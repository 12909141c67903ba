#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks one fabric results directory against the chaos invariants
(bench/chaos/invariants.py) and prints each violation; exit 1 if any.

  check.py RESULTS_DIR [RERUN_RESULTS_DIR]
"""
import sys

from chaos import invariants as I

rep = I.check(sys.argv[1])
if len(sys.argv) > 2:
    diff = I.identical(sys.argv[1], sys.argv[2])
    rep.expect("e", "rerun", not diff, "differs: " + ", ".join(diff))
for inv, where, what in rep.violations:
    print(f"({inv}) {where}: {what}")
print(("stuck (unprotected deadlock); " if rep.stuck else "") +
      " ".join(f"{k}={v}" for k, v in sorted(rep.n.items())) + f" violations={len(rep.violations)}")
sys.exit(1 if rep.violations else 0)
