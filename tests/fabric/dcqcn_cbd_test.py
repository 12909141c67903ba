#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/hotnets/cbd_dcqcn.sh, short (suite 'fabric', virtual clock): the
HotNets'16 CBD with PFC alone deadlocks; with DCQCN it does not when the
ring's links are 1 us long, and still does at 10 us, where the deadlock
closes before the first CNP can act (HotNets'16 §4). No lossless drop.

  dcqcn_cbd_test.py BUILD_DIR SOURCE_DIR
"""
import os
import sys
import tempfile

from hotnets.cbd_dcqcn import measure, run  # noqa: E402
from pfclib.checks import check, finish  # noqa: E402

fabric = os.path.join(sys.argv[1], "dataplane/emulator/pfcfabric")
with tempfile.TemporaryDirectory(prefix="fabric-cbd-dcqcn-") as tmp:
    res = {(d, m): measure(run(fabric, tmp, d, m)) for d in (1, 10) for m in ("pfc", "dcqcn-55us")}
for (d, m), (dead, onset, gbps, frames, drops) in sorted(res.items()):
    print(f"{d} us {m}: deadlock {dead} (onset {onset}), {gbps:.2f} Gb/s, {frames} pause frames")
check("PFC alone deadlocks at 1 us and 10 us", res[(1, "pfc")][0] and res[(10, "pfc")][0])
check("DCQCN keeps the 1 us ring moving (over 40 Gb/s)",
      not res[(1, "dcqcn-55us")][0] and res[(1, "dcqcn-55us")][2] > 40, str(res[(1, "dcqcn-55us")]))
check("DCQCN does not rule the deadlock out: the 10 us ring deadlocks", res[(10, "dcqcn-55us")][0],
      str(res[(10, "dcqcn-55us")]))
check("no lossless drop", all(v[4] == 0 for v in res.values()))
finish()
