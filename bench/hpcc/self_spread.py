#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""How far each side moves from itself (issue 40): the yardstick for the
per-flow FCT ratio between the emulator and the HPCC simulator.

vs_simulator.py compares pfcfabric with the simulator flow by flow. This
runs each side again on the same files with one thing changed that a user
would call the same experiment, and compares each side with itself in the
same terms (per size bucket FCT p50/p95/p99 ratios, the per-flow FCT ratio's
p5/p50/p95, flows within 10%):
  seed    the random draws: the simulator with ns-3's RngRun 2, pfcfabric
          with fabric.seed 2 (both draw their ECN marks from it; a case
          without ECN marking, ENABLE_QCN 0, skips it: nothing is drawn);
  jitter  every flow starts 0-JITTER_NS ns later (default 10; Python's
          random, seeded 1, one draw a flow in file order): less than a
          1000-byte packet's time on a 400G link;
  shift   the flow with the most bytes (the first of them) starts 1 ns later.
PERTURB picks them (default seed,jitter,shift). Flows are matched on
(source, destination, bytes) and the nearest start within JITTER_NS + 2 ns
(the simulator's start goes through a double).

  self_spread.py FABRIC_BIN SIM_DIR REF_DIR OUT_DIR CASE...
CASE as vs_simulator.py's. The runs go into OUT_DIR/CASE/<base|seed|jitter|shift>/
(sim/ and emu/), two at a time (two cores); ANALYSE_ONLY=1 reads them
again. BASE_FROM=DIR takes the base run from a vs_hpcc_simulator.sh run's
OUT_DIR instead (DIR/CASE/sim, emu and fabric, copied; both sides' outputs
are the same on rerun), so a perturbation costs one run of each side.
Prints a table per case, writes OUT_DIR/self_spread.png and
OUT_DIR/self_spread.json; last line
  RESULT <case>_<cmp>_ratio_p5=<x> <case>_<cmp>_ratio_p95=<x>
         <case>_<cmp>_within_10pct=<n> ... (cmp: emu_sim, sim_seed, emu_seed,
         sim_jitter, emu_jitter, sim_shift, emu_shift)
         <case>_<run>_paused_ms_sim=<ms> <case>_<run>_paused_ms_emu=<ms> (run: base,
         seed, jitter, shift; the table has each run's PFC frames and drops too)
"""
import os
import random
import shutil
import sys
import time

import vs_simulator as vs

KINDS = ("seed", "jitter", "shift")
try:
    JITTER_NS = int(os.environ.get("JITTER_NS", "10"))
except ValueError:
    sys.exit(f"self_spread: JITTER_NS={os.environ['JITTER_NS']!r}: expected a whole number of ns")
PERTURB = [p for p in os.environ.get("PERTURB", ",".join(KINDS)).split(",") if p]
if JITTER_NS < 0 or not PERTURB or any(p not in KINDS for p in PERTURB):
    sys.exit(f"self_spread: PERTURB={','.join(PERTURB)!r} JITTER_NS={JITTER_NS}: expected a "
             f"comma-separated list of {', '.join(KINDS)} and JITTER_NS >= 0")
ANALYSE_ONLY = os.environ.get("ANALYSE_ONLY", "0") == "1"
BASE_FROM = os.environ.get("BASE_FROM", "")
NAMES = {"emu_sim": "pfcfabric / simulator",
         "sim_seed": "simulator RngRun 2 / 1", "emu_seed": "pfcfabric seed 2 / 1",
         "sim_jitter": f"simulator 0-{JITTER_NS} ns jitter / none",
         "emu_jitter": f"pfcfabric 0-{JITTER_NS} ns jitter / none",
         "sim_shift": "simulator largest flow +1 ns / none",
         "emu_shift": "pfcfabric largest flow +1 ns / none"}


# One colour a perturbation: the simulator's line dashed (bars hatched), pfcfabric's solid.
COLOURS = {"sim": "k", "seed": "tab:blue", "jitter": "tab:orange", "shift": "tab:green"}


def ns_text(ns):
    return f"{ns // 1_000_000_000}.{ns % 1_000_000_000:09d}"


def text_ns(s):
    whole, _, frac = s.partition(".")
    return int(whole) * 1_000_000_000 + int((frac + "000000000")[:9])


def perturbed_case(cdir, out, kind):
    """A case folder in out/ whose flow file has kind's change; the config's
    other files are the original case's (absolute paths)."""
    cfg = vs.read_config(os.path.join(cdir, "config.txt"))
    flows = open(os.path.join(cdir, cfg["FLOW_FILE"][0])).read().split("\n")
    rows = [ln.split() for ln in flows[1:] if ln.strip()]
    if kind == "jitter":
        rng = random.Random(1)
        deltas = [rng.randint(0, JITTER_NS) for _ in rows]
    else:   # shift: the largest flow (the first of them in file order), 1 ns later
        big = max(range(len(rows)), key=lambda i: (int(rows[i][4]), -i))
        deltas = [1 if i == big else 0 for i in range(len(rows))]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "flows.txt"), "w") as f:
        f.write(flows[0].strip() + "\n")
        for w, d in zip(rows, deltas):
            f.write(" ".join(w[:5] + [ns_text(text_ns(w[5]) + d)]) + "\n")
    with open(os.path.join(out, "config.txt"), "w") as f:
        for line in open(os.path.join(cdir, "config.txt")):
            w = line.split()
            if w and w[0] == "FLOW_FILE":
                line = "FLOW_FILE flows.txt\n"
            elif w and w[0] in ("TOPOLOGY_FILE", "TRACE_FILE") and \
                    os.path.exists(os.path.join(cdir, w[1])):
                line = f"{w[0]} {os.path.realpath(os.path.join(cdir, w[1]))}\n"
            f.write(line)
    return out


def emu_seed(fabric_bin, base_out, out, seed):
    """pfcfabric on the base run's converted files with fabric.seed seed."""
    conv = os.path.join(base_out, "fabric")
    text = open(os.path.join(conv, "fabric.yaml")).read()
    if ", seed: 1 }" not in text:
        sys.exit(f"self_spread: {conv}/fabric.yaml: no 'seed: 1' in its fabric section")
    fab = os.path.join(conv, f"fabric-seed{seed}.yaml")
    with open(fab, "w") as f:
        f.write(text.replace(", seed: 1 }", f", seed: {seed} }}", 1))
    os.makedirs(out, exist_ok=True)
    shutil.rmtree(os.path.join(out, "emu"), ignore_errors=True)
    return vs.timed([fabric_bin, "--fabric", fab, "--out", os.path.join(out, "emu")], out,
                    os.path.join(out, "emu.log"))


def run_jobs(jobs):
    """Each job a (label, start) whose start returns a Popen; two at a time,
    in order (a pfcfabric seed run reads the files its base run converted)."""
    pending, running = list(jobs), []
    while pending or running:
        while pending and len(running) < 2:
            label, start = pending.pop(0)
            print(f"self_spread: running {label}", flush=True)
            running.append((label, start()))
        time.sleep(0.5)
        for label, proc in list(running):
            if proc.poll() is not None:
                if proc.returncode != 0:
                    sys.exit(f"self_spread: {label} failed (exit {proc.returncode})")
                running.remove((label, proc))


def pair(a, b):
    """(size, a fct, b fct) for flows of a matched in b on (src, dst, bytes)
    and the nearest start within JITTER_NS + 2 ns; both completed."""
    by = {}
    for f in b:
        by.setdefault(f["key"][:3], []).append(f)
    out = []
    for f in a:
        cand = by.get(f["key"][:3], [])
        near = min(cand, key=lambda g: abs(g["key"][3] - f["key"][3]), default=None)
        if near is None or abs(near["key"][3] - f["key"][3]) > JITTER_NS + 2:
            continue
        cand.remove(near)
        if f["fct"] is not None and near["fct"] is not None:
            out.append((f["key"][2], f["fct"], near["fct"]))
    return out


def stats(pairs):
    s = {"flows": len(pairs), "buckets": []}
    for lo, hi, name, key in vs.BUCKETS:
        b = [p for p in pairs if lo <= p[0] < hi]
        row = {"bucket": name, "key": key, "flows": len(b)}
        for q in (50, 95, 99):
            x, y = vs.pct([p[1] for p in b], q), vs.pct([p[2] for p in b], q)
            row[f"p{q}"] = y / x if x else None
        s["buckets"].append(row)
    ratio = [p[2] / p[1] for p in pairs]
    s["ratio"] = {f"p{q}": vs.pct(ratio, q) for q in (5, 50, 95)}
    s["within_10pct"] = sum(1 for r in ratio if 0.9 <= r <= 1.1)
    s["ratios"] = ratio
    return s


def runs_for(case, fabric_bin, sim_dir, ref, out):
    """Starts (unless ANALYSE_ONLY) and returns {run: (sim flows, emu flows)}."""
    cdir = vs.case_dir(ref, case)
    cout = os.path.join(out, os.path.basename(cdir.rstrip("/")))
    qcn = vs.read_config(os.path.join(cdir, "config.txt")).get("ENABLE_QCN", ["1"])[0] != "0"
    kinds = [k for k in PERTURB if k != "seed" or qcn]
    base = os.path.join(cout, "base")
    jobs = [("base simulator", lambda: vs.start_sim(sim_dir, cdir, os.path.join(base, "sim"))),
            ("base pfcfabric", lambda: vs.start_emu(fabric_bin, cdir, base))]
    if BASE_FROM and not ANALYSE_ONLY:
        src = os.path.join(BASE_FROM, os.path.basename(cdir.rstrip("/")))
        need = [os.path.join(src, "sim", "out_fct.txt"), os.path.join(src, "emu", "fct.csv"),
                os.path.join(src, "fabric", "fabric.yaml")]
        missing = [n for n in need if not os.path.exists(n)]
        if missing:
            sys.exit(f"self_spread: BASE_FROM={BASE_FROM}: no {missing[0]} (expected a "
                     "vs_hpcc_simulator.sh OUT_DIR holding this case's run)")
        shutil.rmtree(base, ignore_errors=True)
        for d in ("sim", "emu", "fabric"):
            shutil.copytree(os.path.join(src, d), os.path.join(base, d))
        jobs = []
    for k in kinds:
        d = os.path.join(cout, k)
        if k == "seed":
            jobs += [("simulator RngRun 2", lambda d=d: vs.start_sim(sim_dir, cdir, os.path.join(d, "sim"), 2)),
                     ("pfcfabric seed 2", lambda d=d: emu_seed(fabric_bin, base, d, 2))]
        else:
            pc = perturbed_case(cdir, os.path.join(d, "case"), k)
            jobs += [(f"simulator {k}", lambda d=d, pc=pc: vs.start_sim(sim_dir, pc, os.path.join(d, "sim"))),
                     (f"pfcfabric {k}", lambda d=d, pc=pc: vs.start_emu(fabric_bin, pc, d))]
    if not ANALYSE_ONLY:
        run_jobs(jobs)
    return cout, {r: (vs.sim_flows(os.path.join(cout, r, "sim", "out_fct.txt")),
                      vs.emu_flows(os.path.join(cout, r, "emu", "fct.csv")))
                  for r in ["base"] + kinds}


def plot(cases, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(len(cases), 2, figsize=(14, 4.8 * len(cases)), squeeze=False)
    for (name, comps), row in zip(cases, axes):
        ax = row[0]
        for cmp, s in comps.items():
            v = sorted(s["ratios"])
            ax.step(v, [(i + 1) / len(v) for i in range(len(v))], where="post",
                    lw=2.2 if cmp == "emu_sim" else 1.2, color=COLOURS[cmp.split("_")[1]],
                    ls="-" if cmp.startswith("emu") else "--", label=NAMES[cmp])
        ax.axvspan(0.9, 1.1, color="green", alpha=0.1, label="issue 40's band [0.9, 1.1]")
        ax.set_xlim(0.5, 2.0)
        ax.set_xlabel("per-flow FCT ratio")
        ax.set_ylabel("CDF of flows")
        ax.set_title(f"{name}: per-flow FCT ratio, each side against itself")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
        ax = row[1]
        names = [b["bucket"] for b in next(iter(comps.values()))["buckets"]]
        w = 0.8 / len(comps)
        for i, (cmp, s) in enumerate(comps.items()):
            ys = [abs(b["p99"] - 1) * 100 if b["p99"] else 0 for b in s["buckets"]]
            ax.bar([x + i * w for x in range(len(names))], ys, w, label=NAMES[cmp],
                   color=COLOURS[cmp.split("_")[1]], hatch="//" if cmp.startswith("sim") else None,
                   edgecolor="white" if cmp.startswith("sim") else None)
        ax.axhline(15, color="green", lw=0.8, label="issue 40's p99 tolerance")
        ax.set_xticks([x + 0.4 - w / 2 for x in range(len(names))])
        ax.set_xticklabels(names)
        ax.set_ylabel("|p99 FCT ratio - 1| (%)")
        ax.set_title(f"{name}: p99 by size bucket")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    fabric_bin, sim_dir, ref, out = (os.path.abspath(a) for a in sys.argv[1:5])
    os.makedirs(out, exist_ok=True)
    cases, result, lines_all, dump = [], [], [], {}
    for case in sys.argv[5:]:
        cout, runs = runs_for(case, fabric_bin, sim_dir, ref, out)
        name = os.path.basename(cout)
        sim0, emu0 = runs["base"]
        comps = {"emu_sim": stats(pair(sim0, emu0))}
        for k in runs:
            if k != "base":
                comps[f"sim_{k}"] = stats(pair(sim0, runs[k][0]))
                comps[f"emu_{k}"] = stats(pair(emu0, runs[k][1]))
        lines = [f"== {name}: {len(sim0)} simulator flows; each ratio is second / first, flow by flow",
                 f"{'comparison':<40} {'matched':>7} {'p50 ratio by bucket':>24} {'p95':>24} "
                 f"{'p99':>24} {'per flow p5/p50/p95':>20} {'within 10%':>11}"]
        for cmp, s in comps.items():
            def by(q):
                return " ".join(vs.fmt(b[f"p{q}"], 2) for b in s["buckets"])
            lines.append(f"{NAMES[cmp]:<40} {s['flows']:>7} {by(50):>24} {by(95):>24} {by(99):>24} "
                         f"{' / '.join(vs.fmt(s['ratio'][f'p{q}'], 2) for q in (5, 50, 95)):>20} "
                         f"{s['within_10pct']:>11}")
            tag = f"{name.replace('-', '_')}_{cmp}"
            result += [f"{tag}_ratio_p5={s['ratio']['p5']:.3f}", f"{tag}_ratio_p95={s['ratio']['p95']:.3f}",
                       f"{tag}_within_10pct={s['within_10pct']}"]
        lines.append(f"  buckets: {', '.join(b[2] for b in vs.BUCKETS)}")
        # PFC: how far the pauses move from run to run on each side.
        pauses = {}
        for k in runs:
            sp = vs.sim_pauses(os.path.join(cout, k, "sim", "out_pfc.txt"))
            ep = vs.emu_pauses(os.path.join(cout, k, "emu", "results.json"))
            pauses[k] = {"sim": sp, "emu": ep}
            lines.append(f"  pauses {k:<7} simulator {sp['pause']:>6} frames {sp['paused_ms']:8.1f} ms paused "
                         f"{'-' if sp['drops'] is None else sp['drops']:>7} drops; pfcfabric {ep['pause']:>6} "
                         f"frames {ep['paused_ms']:8.1f} ms paused {ep['lossless_drops']:>7} drops")
            tag = name.replace('-', '_')
            result += [f"{tag}_{k}_paused_ms_sim={sp['paused_ms']:.1f}",
                       f"{tag}_{k}_paused_ms_emu={ep['paused_ms']:.1f}"]
        print("\n".join(lines), flush=True)
        lines_all += lines
        cases.append((name, comps))
        dump[name] = {"compare": {c: {k: v for k, v in s.items() if k != "ratios"} for c, s in comps.items()},
                      "pauses": pauses}
    png = os.path.join(out, "self_spread.png")
    plot(cases, png)
    vs.write_outputs(out, png, "self_spread.json", dump, lines_all, result)

if __name__ == "__main__":
    main()
