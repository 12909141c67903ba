#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs an experiment of the RDMA simulator built on ns-3 for the HPCC work
on pfcfabric: converts its topology.txt, flow.txt and (optionally) the
congestion-control keys of its config.txt into OUT_DIR/fabric.yaml and
OUT_DIR/switch.yaml (pfclib/hpcc_files.py has the formats and what is
carried over), then `pfcfabric --fabric OUT_DIR/fabric.yaml` runs it.

  tools/hpcc_import.py --topology mix/topology.txt --flows mix/flow.txt
                       [--config mix/config.txt] [--duration-ms N]
                       [--cc none|dcqcn|hpcc|hpcc_pint|timely|dctcp] --out DIR
Exit 0 and the command to run; exit 2 with file:line: what was expected.
"""
import argparse
import os
import sys

from pfclib.hpcc_files import HpccError, convert  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--topology", required=True)
    ap.add_argument("--flows", required=True)
    ap.add_argument("--config")
    ap.add_argument("--duration-ms", type=float)
    ap.add_argument("--cc", choices=["none", "dcqcn", "hpcc", "hpcc_pint", "timely", "dctcp"])
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    try:
        fabric, switch, notes = convert(a.topology, a.flows, a.config, a.duration_ms, a.cc)
    except HpccError as e:
        print(f"hpcc_import: {e}", file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "fabric.yaml"), "w") as f:
        f.write(fabric)
    with open(os.path.join(a.out, "switch.yaml"), "w") as f:
        f.write(switch)
    for n in notes:
        print(f"hpcc_import: note: {n}")
    print(f"hpcc_import: wrote {a.out}/fabric.yaml and switch.yaml; run: "
          f"pfcfabric --fabric {a.out}/fabric.yaml")
    return 0


if __name__ == "__main__":
    sys.exit(main())
