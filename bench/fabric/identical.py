# SPDX-License-Identifier: BSD-3-Clause
"""The fabric files and the results.json filter of bench/fabric/identical.sh:

  python3 -m fabric.identical files FAB_DIR FILES_DIR
      the cases made here: the HotNets loop (6 Gb/s) and CBD (no limit),
      Fig. 10 with DCFIT (detect, break) and DCFIT's trigger handling
  python3 -m fabric.identical strip RESULTS_JSON KEYS
      drops the comma-separated KEYS, at any depth, from RESULTS_JSON

(bench/ and tools/ on PYTHONPATH, as bench/lib.sh sets it)."""
import json
import os
import sys

from dcfit import fig5 as dcfit_fig5
from hotnets.deadlocks import cbd_file, loop_file
from pfclib.dcfit_fabrics import fig10_with_dcfit


def files(fab_dir, files_dir):
    loop_file(fab_dir, os.path.join(files_dir, "hotnets-loop.yaml"), "6")
    cbd_file(fab_dir, os.path.join(files_dir, "hotnets-cbd.yaml"))
    for recovery in ("detect", "break"):
        fig10_with_dcfit(fab_dir, files_dir, recovery, 6)
    # DCFIT §4 trigger handling (a host trigger and a switch trigger).
    for trigger in ("host", "switch"):
        dcfit_fig5.fabric_file(files_dir, "trigger-" + trigger, dcfit_fig5.CASES[1][1], 6, trigger)


def strip(path, keys):
    """Rewrites the results.json at path without keys (a set), at any depth."""
    def without(o):
        if isinstance(o, dict):
            return {k: without(v) for k, v in o.items() if k not in keys}
        return [without(v) for v in o] if isinstance(o, list) else o
    with open(path) as f:
        r = without(json.load(f))
    with open(path, "w") as f:
        f.write(json.dumps(r, indent=1) + "\n")


def main(argv):
    if len(argv) == 4 and argv[1] == "files":
        files(argv[2], argv[3])
    elif len(argv) == 4 and argv[1] == "strip":
        strip(argv[2], set(argv[3].split(",")))
    else:
        sys.exit("usage: python3 -m fabric.identical files FAB_DIR FILES_DIR | strip RESULTS_JSON KEYS")


if __name__ == "__main__":
    main(sys.argv)
