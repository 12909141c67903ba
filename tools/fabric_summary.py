#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Prints one pfcfabric run's summary: each flow's rate at its receiver, in
frame bytes, the mean of flows.csv's bins after T ms (default: half the
run), the links paused and idle at the end (a deadlock), the drop counters.
The verdict's rates are wire bits over a flow's whole time, so they differ
(docs/reference/behaviour.md, "Counts that differ").

  tools/fabric_summary.py RESULTS_DIR [--from-ms T]

The reading itself is pfclib.fabric_results (tools/pfclib)."""
import argparse

from pfclib.fabric_results import describe, summary


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--from-ms", type=float, default=None,
                    help="average the bins that end after this time (default: half the run)")
    a = ap.parse_args()
    print(describe(a.dir, summary(a.dir, a.from_ms)))


if __name__ == "__main__":
    main()
