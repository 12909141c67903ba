#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The closing line of tools/test.sh, counted from meson's own log:

  testlog_summary.py BUILD/meson-logs/testlog.json [CI]

prints "P passed, F failed, S skipped"; with CI "true" a skipped test counts
as failed (and is named), and the exit status is 1 when any was skipped.
Run by its path, standard library only: the test command needs no
PYTHONPATH on a fresh machine."""
import json
import sys


def summary(testlog, ci):
    with open(testlog) as f:
        tests = [json.loads(line) for line in f if line.strip()]
    ok = sum(t["result"] in ("OK", "EXPECTEDFAIL") for t in tests)
    skipped = [t["name"] for t in tests if t["result"] == "SKIP"]
    failed = len(tests) - ok - len(skipped)
    if ci:
        for name in skipped:
            print(f"CI: {name} skipped: counted as failed")
        print(f"{ok} passed, {failed + len(skipped)} failed")
        return 1 if skipped else 0
    print(f"{ok} passed, {failed} failed, {len(skipped)} skipped")
    return 0


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: testlog_summary.py TESTLOG_JSON [CI]")
    sys.exit(summary(sys.argv[1], len(sys.argv) == 3 and sys.argv[2] == "true"))
