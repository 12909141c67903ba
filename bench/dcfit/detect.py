#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""DCFIT detection experiments on the fabric emulator (issue 9), run by
bench/dcfit/detect.sh: fixed cases RUNS times each, then a randomised mix
of MIX runs; every run on the virtual clock, deterministic given its seed.

Truth is the data plane's, never DCFIT's: a run deadlocked when the links
paused by their peer and idle over the last 0.5 ms (tools/fabric_summary.py
stuck_ports) contain a cycle of switches. A declared deadlock in a run that
did not deadlock is a false positive; a deadlocked run with none declared,
a false negative. Detection time is the fabric's detect_ns (emulated time
from the moment every loop link was paused to the declaration); a
detection is on-loop when the initial trigger in the declared message is a
switch of the loop, off-loop otherwise.

  dcfit_detect.py RUNS MIX FABRIC OUT_DIR
"""
import json
import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pfclib.dcfit_fabrics import with_dcfit  # noqa: E402
from pfclib.fattree_loop import UNLIMITED, flow, pin  # noqa: E402,F401
from pfclib.fabric_results import results, stuck_ports# noqa: E402
from dcfit.detect_plot import plot  # noqa: E402

CFG = os.path.join(SRC, "configs/fabric")
# Set by main, or by a test importing this file: the pfcfabric binary and
# the directory every run's files and results go to.
fabric = out = None


# The fat-tree cases (configs/fabric/dcfit-fattree.yaml). Links a0_0-t0_0
# and a1_0-t1_0 fail at fail_us, and routing (not converged) sends what
# a0_0 and a1_0 can no longer deliver back up and round through another
# pod. green (h2_1_0 -> h1_0_0) then runs
#   t2_1 a2_0 c0 a1_0 c1 a0_0 t0_1 a0_1 c2 a1_1 t1_0
# and blue (h3_0_0 -> h0_0_0)
#   t3_0 a3_0 c1 a0_0 c0 a1_0 t1_1 a1_1 c3 a0_1 t0_0,
# each over three links of the loop a0_0 -> c0 -> a1_0 -> c1 -> a0_0 and
# sharing c0 -> a1_0 and c1 -> a0_0 (Tagger Fig. 10's shape, in a fat-tree).
GREEN = ["t2_1", "a2_0", "c0", "a1_0", "c1", "a0_0", "t0_1", "a0_1", "c2", "a1_1", "t1_0"]
BLUE = ["t3_0", "a3_0", "c1", "a0_0", "c0", "a1_0", "t1_1", "a1_1", "c3", "a0_1", "t0_0"]


def fat_tree_loop(fail_us, green_rate, blue_rate, blue_start_us):
    flows = flow("green", "h2_1_0", "h1_0_0", green_rate) + flow("blue", "h3_0_0", "h0_0_0", blue_rate, blue_start_us)
    ev = (pin("h1_0_0", ["t2_1", "a2_0", "c0", "a1_0", "t1_0"]) + pin("h0_0_0", ["t3_0", "a3_0", "c1", "a0_0", "t0_0"]) +
          f"  - {{ at: {fail_us}us, link: [a0_0, t0_0], state: down }}\n"
          f"  - {{ at: {fail_us}us, link: [a1_0, t1_0], state: down }}\n" +
          pin("h1_0_0", GREEN[3:], fail_us) + pin("h0_0_0", BLUE[3:], fail_us))
    return flows, ev


def ft_on(rng, k):
    """Initial trigger on the loop: both flows unrestricted, so the shared
    loop links are 2:1 oversubscribed at c0 and c1."""
    f, e = fat_tree_loop(150 + 17 * k, UNLIMITED, UNLIMITED, 300 + 23 * k)
    return f, e, 1 + k


def ft_off(rng, k, loop_rate=15, f5_rate=8, incast=(UNLIMITED, UNLIMITED, UNLIMITED), start_us=None):
    """Initial trigger off the loop (§3.4, Fig. 3): the loop flows at 15 Gb/s
    (no congestion on the loop); f5 (h3_1_0 -> h0_1_0) enters the loop at
    c1 -> a0_0 and leaves it at a0_0 -> t0_1; an incast into h0_1_0 congests
    t0_1, whose pause reaches a0_0 from outside and, round the loop, from
    c0: a0_0 is the middle switch."""
    start = 500 + 29 * k if start_us is None else start_us
    f, e = fat_tree_loop(150 + 13 * k, loop_rate, loop_rate, 0)
    f += flow("f5", "h3_1_0", "h0_1_0", f5_rate)
    for i, r in enumerate(incast):
        f += flow(f"inc{i}", ["h0_1_1", "h2_0_0", "h1_1_0"][i], "h0_1_0", r, start)
    e += pin("h0_1_0", ["t3_1", "a3_0", "c1", "a0_0", "t0_1"])
    return f, e, 100 + k


def fig4(rng, k, rate=15, start_us=None):
    """Fig. 4: t3_0 is congested (incast into h3_0_0 and h3_0_1) and pauses
    a3_0, which pauses both c0 and c1; both pause a0_0, which receives the
    same {S_tri, P_tri} from two ports: a middle switch, with no loop."""
    start = 200 + 31 * k if start_us is None else start_us
    f = (flow("fa", "h0_0_0", "h3_0_0", rate) + flow("fb", "h0_1_0", "h3_0_1", rate) +
         flow("inc", "h3_0_1", "h3_0_0", UNLIMITED, start) + flow("inc2", "h3_1_0", "h3_0_1", UNLIMITED, start))
    e = pin("h3_0_0", ["t0_0", "a0_0", "c0", "a3_0", "t3_0"]) + pin("h3_0_1", ["t0_1", "a0_0", "c1", "a3_0", "t3_0"])
    return f, e, 200 + k


def transient(rng, k, nbytes=None, loop_rate=15):
    """A causality loop that forms and resumes at once: the loop flows at
    15 Gb/s, plus a short burst (h3_1_0 -> h2_0_0 over c1 -> a0_0 -> c0, two
    loop links) that congests c1 -> a0_0 for a moment."""
    f, e = fat_tree_loop(100, loop_rate, loop_rate, 0)
    f += flow("burst", "h3_1_0", "h2_0_0", UNLIMITED, 400 + 19 * k, nbytes or 150_000 + 25_000 * k)
    e += pin("h2_0_0", ["t3_1", "a3_0", "c1", "a0_0", "c0", "a2_0", "t2_0"])
    return f, e, 300 + k


def storm(rng, k, us=None, loop_rate=15):
    """A host pauses for a moment: h1_0_0 (green's destination, behind the
    loop) sends pause for `us` microseconds; the pause climbs green's path
    back into the loop, which may close while the storm lasts and open
    again when it ends (or deadlock)."""
    f, e = fat_tree_loop(100, loop_rate, loop_rate, 0)
    at, us = 500 + 11 * k, us or 20 + 10 * k
    e += (f"  - {{ at: {at}us, host: h1_0_0, storm: [1] }}\n"
          f"  - {{ at: {at + us}us, host: h1_0_0, storm: [] }}\n")
    return f, e, 600 + k


def incast(rng, k, senders=6, rate=UNLIMITED):
    """Heavy incast, no CBD: shortest (up-down) routes, no failed link,
    `senders` hosts of other pods into h3_0_0."""
    hosts = [f"h{p}_{i}_{m}" for p in range(3) for i in range(2) for m in range(2)]
    rng.shuffle(hosts)
    f = "".join(flow(f"s{i}", h, "h3_0_0", rate, rng.randrange(0, 300)) for i, h in enumerate(hosts[:senders]))
    f += flow("local", "h3_0_1", "h3_0_0", UNLIMITED, rng.randrange(0, 300))
    return f, "", 400 + k


def resumed(rng, k):
    """A causality loop that forms and is opened at once (issue 9's
    experiment; DCFIT §5): a host pause storm with the loop flows at 30
    Gb/s closes the loop a0_0 -> c0 -> a1_0 -> c1 (as `storm` does: a
    deadlock). run() first runs it as it is to learn when DCFIT's first pass
    finds the loop (loop_found), then runs it again, identical up to then
    (runs are deterministic), with one loop link failing 1 us later, while
    the temporal pass is on its way round: the loop is open for good, DCFIT
    must not declare, and reports the failed check (when the failed link's
    pause expires, 0.84 ms later: loop_port_resumed). Runs last 5 ms, so
    the expiry and the 0.5 ms of truth after it fit after a late loop."""
    f, e, _ = storm(rng, k, 300 + 100 * k, 30)
    return f, e, 700 + k


LOOP_LINKS = ["c1, a0_0", "a0_0, c0", "c0, a1_0", "a1_0, c1"]

FT_CASES = {"ft_on": ft_on, "ft_off": ft_off, "fig4": fig4, "transient": transient, "incast": incast,
            "resumed": resumed}


def ring(k, rate):
    return (flow("flow1", "HA", "HD", rate) + flow("flow2", "HC", "HB", rate, k * 23) +
            flow("flow3", "HB3", "HC3", rate), "", 500 + k)


def write(case, tag, spec, dur_ms):
    """The fabric file of a run: the case's base file with dcfit on, the
    run's seed, its flows and events."""
    flows, events, seed = spec
    if case in ("ring", "cbd10"):
        base, extra = "hotnets-cbd.yaml", "flows:\n" + flows
    elif case == "fig10":
        base, extra = "fig10-1bounce.yaml", ""
    else:
        base, extra = "dcfit-fattree.yaml", "flows:\n" + flows + ("events:\n" + events if events else "")
    p = with_dcfit(CFG, out, base, "switch-lossless.yaml", "detect", dur_ms, tag, extra)
    t = open(p).read().replace("seed: 1 }", f"seed: {seed} }}")
    if case == "fig10":
        t = t.replace("start: 2ms", f"start: {1000 + 37 * seed}us")
    open(p, "w").write(t)
    return p


def deadlocked(d):
    """A cycle among the links held paused and idle at the end."""
    nxt = {}
    for sw, port in stuck_ports(d):
        nxt.setdefault(sw, set()).add(port)
    state = {}

    def cyc(u):
        state[u] = 1
        for v in nxt.get(u, ()):
            if state.get(v) == 1 or (v not in state and cyc(v)):
                return True
        state[u] = 2
        return False
    return any(u not in state and cyc(u) for u in list(nxt))


def node_names(d):
    topo = json.load(open(os.path.join(d, "topology.json")))
    return {i: n["name"] for i, n in enumerate(topo["nodes"])}


def events(d):
    """The run's declared deadlocks (results.json dcfit_events)."""
    r = results(d)
    return [e for e in r["dcfit_events"] if e["kind"] == "deadlock"]


def simulate(case, tag, spec, dur_ms):
    d = os.path.join(out, tag)
    p = subprocess.run([fabric, "--fabric", write(case, tag, spec, dur_ms), "--out", d],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{tag}: pfcfabric failed:\n{p.stdout}{p.stderr}")
    return d


def open_after_loop(tag, spec, dur_ms, k):
    """resumed's events: the run as it is first (its own directory), then
    one loop link down 1 us after the first loop_found; None when the first
    run found no loop (the case then did not happen: reported)."""
    flows, evs, seed = spec
    d = simulate("resumed", tag + "-base", spec, dur_ms)
    found = [e["t_ns"] for e in results(d)["dcfit_events"]
             if e["kind"] == "loop_found"]
    if not found:
        return None
    return flows, evs + f"  - {{ at: {found[0] + 1000}ns, link: [{LOOP_LINKS[k % 4]}], state: down }}\n", seed


def run(case, tag, spec, dur_ms=3):
    if case == "resumed":
        spec = open_after_loop(tag, spec, dur_ms, int(tag.split("-")[1]))
        if spec is None:
            return {"case": case, "tag": tag, "dead": False, "declared": 0, "loops": 0, "failed": 0,
                    "lossless_drops": 0, "times": []}
    d = simulate(case, tag, spec, dur_ms)
    r = results(d)
    names = node_names(d)
    ev = r["dcfit_events"]
    dl = events(d)
    rec = {"case": case, "tag": tag, "dead": deadlocked(d), "declared": len(dl),
           "loops": sum(e["kind"] == "loop_found" for e in ev),
           "failed": sum(e["kind"] == "temporal_failed" for e in ev),
           "lossless_drops": r["lossless_drops"], "times": []}
    for e in dl:
        if "detect_ns" not in e:
            continue
        loop_sw = {x.split(":")[0] for x in e["loop"]}
        tri = names.get(e["trigger"][0], "?")
        rec["times"].append({"us": e["detect_ns"] / 1000, "on_loop": tri in loop_sw, "trigger": tri,
                             "by": e["switch"]})
    return rec


def verdicts(recs):
    """Runs declared without a deadlock (false positives) and deadlocked
    without a declaration (false negatives), by tag; detection times (us)
    with the trigger on the loop and off it."""
    fp = [r["tag"] for r in recs if r["declared"] and not r["dead"]]
    fn = [r["tag"] for r in recs if r["dead"] and not r["declared"]]
    on = [x["us"] for r in recs for x in r["times"] if x["on_loop"]]
    off = [x["us"] for r in recs for x in r["times"] if not x["on_loop"]]
    return fp, fn, on, off


def print_row(r, width, extra=""):
    t = r["times"]
    print(f"{r['tag']:{width}} {str(r['dead']):>10} {r['declared']:8d} {r['loops']:5d} {r['failed']:6d} "
          f"{(min(x['us'] for x in t) if t else float('nan')):10.2f}  "
          f"{(t[0]['trigger'] + (' on-loop' if t[0]['on_loop'] else ' off-loop')) if t else '-'}{extra}",
          flush=True)


def fixed_cases(runs):
    for k in range(runs):
        rng = random.Random(k)
        for case, fn in FT_CASES.items():
            yield case, f"{case}-{k}", fn(rng, k), 5 if case == "resumed" else 3
        yield "fig10", f"fig10-{k}", ("", "", k + 1), 4
        yield "ring", f"ring-{k}", ring(k, UNLIMITED), 4
        yield "cbd10", f"cbd10-{k}", ring(k, 10), 4


def mixed_cases(mix):
    """Randomised: the case and its rates, sizes and start times drawn from
    one seed per run; whether a run deadlocks is for the fabric to say."""
    rates = [10, 15, 20, 25, 30, UNLIMITED]
    for k in range(mix):
        rng = random.Random(1000 + k)
        case = rng.choice(["ft_on", "ft_off", "fig4", "transient", "storm", "incast", "ring", "cbd10"])
        seed = 1000 + k
        if case == "ft_on":
            spec = fat_tree_loop(rng.randrange(50, 500), rng.choice(rates), rng.choice(rates), rng.randrange(0, 800))
        elif case == "ft_off":
            spec = ft_off(rng, k, rng.choice([10, 15]), rng.choice([10, 20]),
                          tuple(rng.choice(rates) for _ in range(rng.randrange(1, 4))), rng.randrange(200, 1000))[:2]
        elif case == "fig4":
            spec = fig4(rng, k, rng.choice([10, 15, 20]), rng.randrange(0, 1000))[:2]
        elif case == "transient":
            spec = transient(rng, k, rng.randrange(20_000, 400_000), rng.choice([10, 15]))[:2]
        elif case == "storm":
            spec = storm(rng, k, rng.randrange(50, 1000), rng.choice([10, 15, 20, 25, 30]))[:2]
        elif case == "incast":
            spec = incast(rng, k, rng.randrange(3, 12), rng.choice(rates))[:2]
        else:
            spec = ring(rng.randrange(0, 40), UNLIMITED if case == "ring" else rng.choice([5, 10]))[:2]
        yield case, f"mix{k:03d}-{case}", (*spec, seed), 3 if case not in ("ring", "cbd10") else 4


def main():
    global fabric, out
    runs, mix, fabric, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    recs = []
    print(f"{'run':22} {'deadlocked':>10} {'declared':>8} {'loops':>5} {'failed':>6} {'detect_us':>10}  trigger")
    todo = list(fixed_cases(runs)) + list(mixed_cases(mix))
    # Runs are independent and each deterministic: JOBS at a time, printed
    # in order.
    with ThreadPoolExecutor(int(os.environ.get("JOBS", "2"))) as ex:
        done = ex.map(lambda c: run(*c), todo)
        for r in done:
            recs.append(r)
            print_row(r, 22)
    json.dump(recs, open(os.path.join(out, "runs.json"), "w"), indent=1)
    fp, fn, on, off = verdicts(recs)
    print(f"deadlocked runs: {sum(r['dead'] for r in recs)}; runs with a loop found and no deadlock: "
          f"{sum(1 for r in recs if r['loops'] and not r['dead'])}")
    print(f"false positives: {' '.join(fp) or 'none'}; false negatives: {' '.join(fn) or 'none'}")
    print(f"lossless_drops={sum(r['lossless_drops'] for r in recs)} (must be 0)")
    res = [r for r in recs if r["case"] == "resumed"]
    bad = [r["tag"] for r in res if not (r["loops"] and r["failed"] and not r["declared"] and not r["dead"])]
    print(f"resumed: {len(res) - len(bad)}/{len(res)} loops found, then opened: check failed, nothing declared, "
          f"no deadlock; not so: {' '.join(bad) or 'none'}")
    plot(recs, os.path.join(out, "dcfit_detect.png"))
    mx = lambda v: f"{max(v):.2f}" if v else "nan"  # noqa: E731
    print(f"RESULT runs={len(recs)} on_loop_us_max={mx(on)} off_loop_us_max={mx(off)} "
          f"false_pos={len(fp)} false_neg={len(fn)}")


if __name__ == "__main__":
    main()
