#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""pfcfabric's verdict (suite 'fabric', virtual clock): the last lines of a
run and results.json's "verdict" name what went wrong, and --expect makes
it the exit status (3).
  * Tagger Fig. 12 without Tagger deadlocks: the cycle of paused, idle
    links is named (L2 -> S1 -> L3 -> S2 and round), --expect no-deadlock
    fails, --expect lossless holds (a deadlock loses nothing).
  * a 3-to-1 incast on a lossy class: the frames lost by reason
    (lossy_buffer_full), --expect no-loss fails; the same incast on the
    lossless class loses nothing but its flows fall below their asked
    rate (--expect rates fails), and sized flows that cannot finish in the
    run are counted.
  * one flow alone: "ok".
  * garbage for --expect, --threads and --memory-limit: exit 2 naming the
    option, nothing run.

  verdict_test.py BUILD_DIR SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish
from pfclib.fabric_results import results

build, src = sys.argv[1], os.path.abspath(sys.argv[2])
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
FAB = os.path.join(src, "configs/fabric")
ENV = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}


def run(path, out, *extra):
    p = subprocess.run([fabric, "--fabric", path, "--out", out, *extra], capture_output=True,
                       text=True, env=ENV, timeout=300)
    lines = [x[len("pfcfabric: verdict: "):] for x in p.stdout.splitlines()
             if x.startswith("pfcfabric: verdict: ")]
    return p.returncode, p.stdout + p.stderr, lines


def incast(path, dscp, extra_flows=""):
    with open(path, "w") as f:
        f.write(f"fabric: {{ clock: virtual, duration: 2ms, bin: 100us, seed: 1 }}\n"
                f"include: {FAB}/incast-3to1.yaml\n"
                f"switch: {{ config: {FAB}/switch-lossless.yaml }}\nflows:\n"
                f"  - {{ name: a, from: H1, to: H4, dscp: {dscp}, prio: 1, rate: 8G }}\n"
                f"  - {{ name: b, from: H2, to: H4, dscp: {dscp}, prio: 1, rate: 8G }}\n"
                f"  - {{ name: c, from: H3, to: H4, dscp: {dscp}, prio: 1, rate: 8G }}\n" + extra_flows)


with tempfile.TemporaryDirectory(prefix="fabric-verdict-") as tmp:
    shuffle = os.path.join(FAB, "fig12-shuffle.yaml")
    rc, log, v = run(shuffle, os.path.join(tmp, "fig12"), "--expect", "no-deadlock")
    dead = [x for x in v if x.startswith("DEADLOCK ")]
    check("Fig. 12 without Tagger: one deadlock named", len(dead) == 1, "\n".join(v))
    cyc = dead[0].split(" (")[0].split(" ", 1)[1].split(" -> ") if dead else []
    check("its cycle is the CBD's switches, closed",
          len(cyc) == 5 and cyc[0] == cyc[-1] and set(cyc) == {"L2", "S1", "L3", "S2"}, str(cyc))
    check("since when, on priority 1", dead and "(priority 1)" in dead[0] and " since " in dead[0])
    check("--expect no-deadlock exits 3 and says why",
          rc == 3 and "expected no-deadlock (1 deadlock(s))" in log, log[-500:])
    r = results(os.path.join(tmp, "fig12"))["verdict"]
    check("results.json has it", len(r["deadlocks"]) == 1 and r["deadlocks"][0]["prios"] == [1]
          and not r["ok"], json.dumps(r)[:400])
    rc, log, _ = run(shuffle, os.path.join(tmp, "fig12b"), "--expect", "lossless")
    check("a deadlock loses nothing: --expect lossless holds", rc == 0, log[-300:])

    lossy = os.path.join(tmp, "lossy.yaml")
    incast(lossy, 0)
    rc, log, v = run(lossy, os.path.join(tmp, "lossy"), "--expect", "lossless,no-loss")
    lost = [x for x in v if x.startswith("lost ")]
    check("a lossy incast: frames lost by reason", len(lost) == 1 and "lossy_buffer_full" in lost[0]
          and "(lossy)" in lost[0], "\n".join(v))
    check("--expect no-loss fails, lossless does not", rc == 3 and "expected no-loss (" in log
          and "lossless (" not in log.split("expected ")[-1], log[-300:])

    paused = os.path.join(tmp, "paused.yaml")
    incast(paused, 1, "  - { name: sized, from: H1, to: H4, dscp: 1, prio: 1, bytes: 50000000 }\n")
    rc, log, v = run(paused, os.path.join(tmp, "paused"), "--expect", "lossless,rates,complete")
    slow = [x for x in v if "below 90% of their asked rate" in x]
    check("a lossless incast: no loss, flows below their asked rate named",
          not any(x.startswith("lost ") for x in v) and len(slow) == 1 and " of 8.00 Gb/s" in slow[0],
          "\n".join(v))
    check("the sized flow that cannot finish is counted", "1 of 1 sized flows did not complete" in v,
          "\n".join(v))
    check("--expect rates,complete fail", rc == 3 and "rates (" in log and "complete (" in log,
          log[-300:])

    alone = os.path.join(tmp, "alone.yaml")
    with open(alone, "w") as f:
        f.write(f"fabric: {{ clock: virtual, duration: 1ms, bin: 100us, seed: 1 }}\n"
                f"include: {FAB}/incast-3to1.yaml\n"
                f"switch: {{ config: {FAB}/switch-lossless.yaml }}\nflows:\n"
                f"  - {{ name: a, from: H1, to: H4, dscp: 1, prio: 1, rate: 8G }}\n")
    rc, log, v = run(alone, os.path.join(tmp, "alone"), "--expect", "no-deadlock,no-loss,rates")
    check("one flow alone: ok, and every expectation holds", rc == 0 and v and v[-1].startswith("ok"),
          "\n".join(v) + log[-300:])
    # Garbage on the new options: a usage error naming the option, before
    # anything runs.
    for args, opt in ((["--expect", "nonsense"], "--expect"), (["--threads", "0"], "--threads"),
                      (["--threads", "abc"], "--threads"), (["--memory-limit", "-5"], "--memory-limit"),
                      (["--memory-limit", "0"], "--memory-limit")):
        rc, log, _ = run(alone, os.path.join(tmp, "bad"), *args)
        check(f"{' '.join(args)}: exit 2 naming {opt}", rc == 2 and opt in log
              and not os.path.exists(os.path.join(tmp, "bad/results.json")), log[-300:])
finish()
