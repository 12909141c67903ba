#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""DCFIT in §5's k=4 fat-tree (suite 'fabric'; bench/dcfit/detect.py's
cases, one run each): with links a0_0-t0_0 and a1_0-t1_0 failed and the
flows rerouted round a0_0 -> c0 -> a1_0 -> c1 -> a0_0, the deadlock is
declared on that loop, within 50 us of its forming when the trigger (c0) is
on the loop, and by the middle switch a0_0 within 100 us when the trigger
(t0_1, an incast) is off it; Fig. 4's fan-in of one trigger over two ports
declares nothing; a loop that a host's pause storm closes, and a link
failure opens 1 us after DCFIT's first pass found it, fails the temporal
check and is not declared. The fabric's own truth (a cycle of links paused and idle
at the end) agrees each time; no lossless drop.

  dcfit_fattree_test.py BUILD_DIR SOURCE_DIR
"""
import os
import random
import sys
import tempfile

from pfclib.checks import check, finish  # noqa: E402
from pfclib.fabric_results import results  # noqa: E402
from dcfit import detect as D  # noqa: E402

LOOP = {"a0_0:c0", "c0:a1_0", "a1_0:c1", "c1:a0_0"}

with tempfile.TemporaryDirectory(prefix="fabric-dcfit-ft-") as tmp:
    D.fabric = os.path.join(sys.argv[1], "dataplane/emulator/pfcfabric")
    D.out = tmp
    for case, on_loop, limit_us, by in (("ft_on", True, 50, "c0"), ("ft_off", False, 100, "a0_0")):
        r = D.run(case, case, D.FT_CASES[case](random.Random(0), 0))
        check(f"{case}: the fabric deadlocked (a cycle paused and idle at the end)", r["dead"])
        check(f"{case}: one deadlock declared", r["declared"] == 1, str(r["declared"]))
        ev = D.events(os.path.join(tmp, case))
        for e in ev:
            check(f"{case}: declared on the loop a0_0-c0-a1_0-c1", set(e["loop"]) == LOOP and e["loop_closed"],
                  str(e["loop"]))
        for t in r["times"]:
            check(f"{case}: trigger {'on' if on_loop else 'off'} the loop ({t['trigger']})", t["on_loop"] == on_loop)
            check(f"{case}: declared by {by}", t["by"] == by, t["by"])
            check(f"{case}: within {limit_us} us of the loop forming", t["us"] <= limit_us, f"{t['us']} us")
        check(f"{case}: no lossless drop", r["lossless_drops"] == 0, str(r["lossless_drops"]))
    r = D.run("fig4", "fig4", D.fig4(random.Random(0), 0))
    check("fig4: no deadlock in the fabric", not r["dead"])
    check("fig4: nothing declared, no loop found", r["declared"] == 0 and r["loops"] == 0,
          f"declared {r['declared']}, loops {r['loops']}")
    check("fig4: no lossless drop", r["lossless_drops"] == 0, str(r["lossless_drops"]))
    r = D.run("resumed", "resumed-0", D.resumed(random.Random(0), 0))
    ev = results(os.path.join(tmp, "resumed-0"))["dcfit_events"]
    check("resumed: the loop was found (first pass)", r["loops"] >= 1, str(r["loops"]))
    check("resumed: the temporal check failed (loop port resumed)",
          [e.get("why") for e in ev if e["kind"] == "temporal_failed"] == ["loop_port_resumed"],
          str([(e["kind"], e.get("why")) for e in ev]))
    check("resumed: nothing declared, and no deadlock in the fabric", r["declared"] == 0 and not r["dead"],
          f"declared {r['declared']}, dead {r['dead']}")
finish()
