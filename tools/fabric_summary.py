#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Prints one pfcfabric run's summary: flow rates over the end of the run,
the links paused and idle at the end (a deadlock), the drop counters.

  tools/fabric_summary.py RESULTS_DIR [--from-ms T]

The reading itself is pfclib.fabric_results (tools/pfclib)."""
import argparse

from pfclib.fabric_results import describe, summary


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--from-ms", type=float, default=None)
    a = ap.parse_args()
    print(describe(a.dir, summary(a.dir, a.from_ms)))


if __name__ == "__main__":
    main()
