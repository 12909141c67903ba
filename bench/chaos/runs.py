#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Chaos runs of the fabric emulator, Jepsen-style (issue 29, item 1), run
by bench/chaos/runs.sh. Each run draws a fabric and a fault schedule from
its seed (bench/chaos/scenario.py: leaf-spine, k=4 fat-tree or a small
Jellyfish; random link rates and delays; lossless and lossy, sized,
rate-limited, RC and DCQCN flows that stop well before the end; links down
and up and flapping, routes bounced and looped and set back, valid Tagger
rules and invalid rules files reloaded, hosts storming; Tagger rules, DCFIT
recovery, the pause-storm watchdog and ECN marking on in some runs), runs
it twice (the second time with --threads 2 when DCFIT is off, which must
not change a byte) and checks the invariants (bench/chaos/invariants.py)
from the results alone. A failing run is shrunk (bench/chaos/shrink.py) to
a minimal fabric directory under OUT_DIR/repro/ with the command that
reruns it.

  runs.py RUNS FABRIC_BIN TAGGER_BIN OUT_DIR [--seed S] [--no-plot]

Writes OUT_DIR/runs.json, OUT_DIR/chaos.png; last line
  RESULT runs=<n> faults=<n> violations=<n> lossless_drops=<n> leaked_mbufs=<n>
"""
import json
import os
import random
import shutil
import subprocess
import sys
import time

from chaos import invariants as I
from chaos import scenario as S
from chaos.shrink import shrink


def run_fabric(fabric_bin, path, out, threads=1):
    """Runs one fabric file into out; returns the process (rc 0 or 3)."""
    shutil.rmtree(out, ignore_errors=True)
    args = [fabric_bin, "--fabric", path, "--out", out] + (["--threads", str(threads)] if threads > 1 else [])
    return subprocess.run(args, capture_output=True, text=True, timeout=600)


def scenario_checks(sc, r, rep):
    """What the scenario expects of the event log: every invalid rules file
    refused (FAILED), every pfc-tagger rules file taken."""
    log = [e for e in r["events"] if " rules at " in e]
    for f in sc["faults"]:
        for e in f["events"]:
            if "rules" not in e:
                continue
            name = e["rules"]["file"]
            hit = [x for x in log if f"rules at {e['rules']['switch']} from " in x and x.split(" FAILED")[0].endswith(name)
                   and x.startswith(f"{e['at_us'] / 1000:.6f} ms")]
            if not hit:
                rep.fail("f", name, "reload not in the event log")
            elif name.startswith("bad/"):
                rep.expect("f", name, all("FAILED" in x for x in hit), "an invalid rules file was taken")
            else:
                rep.expect("f", name, not any("FAILED" in x for x in hit), hit[0])


def attempt(sc, d, fabric_bin, tagger_bin, rerun=True):
    """Writes sc to d, runs it (and reruns it), checks; returns (report, results)."""
    path = S.write(sc, d, tagger_bin)
    out1, out2 = os.path.join(d, "out"), os.path.join(d, "out-rerun")
    p = run_fabric(fabric_bin, path, out1)
    rep = I.Report()
    if p.returncode not in (0, 3) or not os.path.exists(os.path.join(out1, "results.json")):
        msg = (p.stderr or p.stdout).strip()
        rep.fail("x", "pfcfabric", f"exit {p.returncode}: {msg if len(msg) <= 600 else '...' + msg[-600:]}")
        return rep, None
    rep = I.check(out1)
    r = json.load(open(os.path.join(out1, "results.json")))
    scenario_checks(sc, r, rep)
    if rerun:
        threads = 1 if "dcfit" in sc["template"] else 2
        p2 = run_fabric(fabric_bin, path, out2, threads)
        diff = I.identical(out1, out2) if p2.returncode in (0, 3) else ["(rerun failed)"]
        rep.expect("e", f"rerun --threads {threads}", not diff, "differs: " + ", ".join(diff))
        shutil.rmtree(out2, ignore_errors=True)
    return rep, r


def summary(sc, rep, r):
    n = rep.n
    return {"seed": sc["seed"], "kind": sc["kind"], "topo": sc["topo"], "faults": len(sc["faults"]),
            "events": sum(len(f["events"]) for f in sc["faults"]), "fault_kinds": [f["kind"] for f in sc["faults"]],
            "flows": len(sc["flows"]), "tagger": sc["template"]["tagger"], "dcfit": "dcfit" in sc["template"],
            "pfcwd": "pfcwd" in sc["template"], "stuck": rep.stuck,
            "host_tx": n.get("host_tx", 0), "host_rx": n.get("host_rx", 0), "switch_drops": n.get("switch_drops", 0),
            "link_down": n.get("link_down", 0), "lossless_drops": n.get("lossless_drops", 0),
            "leaked_mbufs": n.get("leaked_mbufs", 0),
            "exempt_drops": sum(r[k] for k in I.TOTALS) if r else 0, "forward_overflow": n.get("forward_overflow", 0),
            "flap_overflow": n.get("flap_overflow", 0), "violations": [list(v) for v in rep.violations]}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    runs, fabric_bin, tagger_bin, out = int(args[0]), args[1], args[2], os.path.abspath(args[3])
    seed0 = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1
    if "--seed" in sys.argv:
        args.remove(str(seed0))
    os.makedirs(out, exist_ok=True)
    rows, t0 = [], time.time()
    for i in range(runs):
        seed = seed0 + i
        d = os.path.join(out, "runs", f"seed-{seed}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        sc = S.draw(random.Random(seed), seed, tagger_bin, d)
        rep, r = attempt(sc, d, fabric_bin, tagger_bin)
        row = summary(sc, rep, r)
        rows.append(row)
        state = "stuck (deadlock, unprotected)" if rep.stuck else "ok"
        print(f"seed={seed} {sc['topo']} faults={row['faults']} events={row['events']} flows={row['flows']} "
              f"tagger={int(row['tagger'])} dcfit={int(row['dcfit'])} pfcwd={int(row['pfcwd'])} "
              f"frames={row['host_tx']} rx={row['host_rx']} drops={row['switch_drops']} link_down={row['link_down']} "
              f"{'VIOLATIONS ' + str(len(rep.violations)) if rep.violations else state}", flush=True)
        if rep.violations:
            for v in rep.violations[:10]:
                print(f"  violation ({v[0]}) {v[1]}: {v[2]}")
            rdir = os.path.join(out, "repro", f"seed-{seed}")
            small = shrink(sc, rep, rdir, fabric_bin, tagger_bin, attempt)
            row["repro"] = rdir
            print(f"  seed {seed}: minimal fabric ({len(small['faults'])} faults, {len(small['flows'])} flows): "
                  f"{rdir}/fabric.yaml")
            print(f"  rerun: {fabric_bin} --fabric {rdir}/fabric.yaml --out {rdir}/out && "
                  f"PYTHONPATH=tools:bench /usr/bin/python3 bench/chaos/check.py {rdir}/out")
        else:
            shutil.rmtree(os.path.join(d, "out"), ignore_errors=True)
    wall = time.time() - t0
    json.dump({"runs": rows, "wall_s": wall}, open(os.path.join(out, "runs.json"), "w"), indent=1)
    if "--no-plot" not in sys.argv:
        from chaos.plot import plot
        plot(rows, os.path.join(out, "chaos.png"))
    viol = sum(len(x["violations"]) for x in rows)
    print(f"{len(rows)} runs in {wall:.1f} s ({len(rows) / wall:.2f} runs/s, two fabric runs each); "
          f"violated runs {sum(1 for x in rows if x['violations'])}; stuck runs {sum(x['stuck'] for x in rows)}; "
          f"exempt lossless drops (TTL, DCFIT, watchdog) {sum(x['exempt_drops'] for x in rows)}; "
          f"overflow behind the watchdog's forward {sum(x['forward_overflow'] for x in rows)}; "
          f"headroom overflow after a link flap {sum(x.get('flap_overflow', 0) for x in rows)}")
    print(f"RESULT runs={len(rows)} faults={sum(x['faults'] for x in rows)} violations={viol} "
          f"lossless_drops={sum(x['lossless_drops'] for x in rows)} leaked_mbufs={sum(x['leaked_mbufs'] for x in rows)}")
    return 1 if viol else 0


if __name__ == "__main__":
    sys.exit(main())
