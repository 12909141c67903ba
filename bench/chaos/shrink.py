# SPDX-License-Identifier: BSD-3-Clause
"""Shrinking a failing chaos scenario (bench/chaos/runs.py): drop fault
groups, then flows, then link overrides and the template's options, one at
a time, keeping each removal while the run still breaks an invariant it
broke at first; a few passes, until nothing more can go. A fault group is
removed whole (a link's down with its up, a storm with its end, a route
with the one that sets it back), so the smaller fabric still ends healthy
and drains.

What is left is written to the repro directory: fabric.yaml with its
switch.yaml, rules and invalid rules files, scenario.json, and the
violations it still shows (violations.txt)."""
import copy
import os
import shutil

PASSES = 3
TEMPLATE_OPTIONS = ("ecn", "pfcwd", "dcfit")


def _candidates(sc):
    """Smaller scenarios, one removal each."""
    for key in ("faults", "flows", "overrides"):
        for i in range(len(sc[key])):
            c = copy.deepcopy(sc)
            del c[key][i]
            yield f"{key}[{i}]", c
    for opt in TEMPLATE_OPTIONS:
        if sc["template"].get(opt):
            c = copy.deepcopy(sc)
            c["template"].pop(opt)
            if opt == "ecn":
                c["template"]["ecn"] = False
                for f in c["flows"]:
                    f.pop("dcqcn", None)
            yield opt, c


def shrink(sc, rep, rdir, fabric_bin, tagger_bin, attempt):
    """The smallest scenario found that still breaks one of rep's
    invariants; written to rdir. attempt(sc, dir, fabric_bin, tagger_bin,
    rerun) runs and checks one (runs.py)."""
    want = {v[0] for v in rep.violations}
    rerun = "e" in want
    work = rdir + ".try"
    best, best_rep = sc, rep
    for _ in range(PASSES):
        changed = False
        i = 0
        while True:
            cands = list(_candidates(best))
            if i >= len(cands):
                break
            _, c = cands[i]
            r, _ = attempt(c, work, fabric_bin, tagger_bin, rerun)
            if want & {v[0] for v in r.violations}:
                best, best_rep, changed = c, r, True  # the same index now names the next candidate
            else:
                i += 1
        if not changed:
            break
    shutil.rmtree(rdir, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    r, _ = attempt(best, rdir, fabric_bin, tagger_bin, rerun)
    with open(os.path.join(rdir, "violations.txt"), "w") as f:
        for v in r.violations or best_rep.violations:
            f.write(f"({v[0]}) {v[1]}: {v[2]}\n")
    return best
