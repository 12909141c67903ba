#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Tagger (ToN 2019) Fig. 11 with RC transport on the fabric emulator: the
# routing loop T1 <-> L1 from 2 ms to 3 ms in the Fig. 2 Clos testbed,
# both flows RC queue pairs writing 64 KB messages (4 MB each, 10 Gb/s;
# configs/fabric/fig11-rc-scenario.yaml), without Tagger and with the
# rules pfc-tagger computes for ELP = shortest up-down + 1-bounce paths.
# With Tagger the looping packets turn lossy and are dropped, and go-back-N
# resends them once the route is fixed: every message completes. Without
# it the loop deadlocks and the deadlock outlives the route. Virtual clock:
# deterministic.
#   bench/tagger/fig11_rc.sh [BUILD_DIR] [OUT_DIR]
# Writes OUT_DIR/fig11_rc.png (flow goodput, pause periods, buffers; left
# without, right with Tagger) and ends with a RESULT line.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/fabric_common.sh "${1:-build}" "${2:-fabric-fig11-rc}"
tagger_figure $FAB/fig11-rc-loop.yaml $FAB/fig11-rc-tagger.yaml fig11_rc.png \
  "Without Tagger (loop T1<->L1 from 2 to 3 ms),With Tagger (lossy fallback + go-back-N)" \
  "Tagger Fig. 11 with RC transport: flow1 H1->H15 loops 2-3 ms; flow2 H2->H16 shares T1->L1"
/usr/bin/python3 - "$OUT" <<'PY'
import sys
from pfclib.fabric_results import STOPPED_GBPS, pair, results
out = sys.argv[1]
s = pair(out)
loop = {("T1", "L1"), ("L1", "T1")}
dead = {run: int(s[run]["rates"]["flow2"] < STOPPED_GBPS and loop <= set(s[run]["stuck"])) for run in s}
r = {run: results(f"{out}/{run}") for run in ("without", "with")}
fl = {run: {f["name"]: f for f in r[run]["flows"]} for run in r}
def lossy_drops(res):
    # Looping packets Tagger moved to the lossy class, dropped there or by TTL.
    return sum(q["drops"]["lossy_buffer_full"] + q["drops"]["ttl_expired"]
               for sw in res["switches"].values() for p in sw["ports"] for q in p["prio"])
msgs = {run: sum(f["rc"]["messages_done"] for f in fl[run].values()) for run in fl}
total = sum(-(-f["fct"]["frames"] // 66) for f in fl["with"].values())  # 64 KB = 66 packets of 1000
w1, t1, t2 = fl["without"]["flow1"], fl["with"]["flow1"], fl["with"]["flow2"]
for run in fl:
    for n, f in fl[run].items():
        print(f"{run:8s} {n}: messages {f['rc']['messages_done']}, retransmits {f['rc']['retransmits']}, "
              f"NAKs {f['rc']['naks']}, timeouts {f['rc']['timeouts']}, completed {f['rc']['completed']}, "
              f"slowdown {f['fct']['slowdown']:.3f}")
print(f"RESULT messages={total} completed_with={msgs['with']} completed_without={msgs['without']} "
      f"flow1_retransmits_with={t1['rc']['retransmits']} flow1_naks_with={t1['rc']['naks']} "
      f"flow1_timeouts_with={t1['rc']['timeouts']} flow1_slowdown_with={t1['fct']['slowdown']:.2f} "
      f"flow2_slowdown_with={t2['fct']['slowdown']:.3f} deadlock_without={dead['without']} "
      f"deadlock_with={dead['with']} lossy_drops_with={lossy_drops(r['with'])} "
      f"lossless_drops={r['without']['lossless_drops'] + r['with']['lossless_drops']}")
PY
