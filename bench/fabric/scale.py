#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Datacenter-scale fabrics on the virtual clock (issue: a 320-switch
fat-tree and a 1,000-switch Jellyfish in one process). For each fabric:

  * start-up: process start to the run's first step (timing.json);
  * peak RSS of the whole run (the kernel's maxrss of the child);
  * the web search workload at 30% load of the 40 Gb/s host links
    (configs/workloads/websearch.cdf, Poisson arrivals, random pairs, RC
    flows, seed 1) for 1 ms, or longer on a fabric of fewer than 1,024
    hosts (HOST_MS / hosts ms: fattree:4 runs 64 ms), so that every
    fabric's run moves about as many frames and a small one's is long
    enough to time: switch-hops, the run's wall seconds, hops per CPU
    second of it (one thread; timing.json's cpu_seconds: what else ran on
    the shared machine meanwhile does not count); then the same run on two threads
    (--threads 2): its wall seconds, the speedup, and whether every output
    file is byte-identical to the one-thread run's; then over two MPI ranks
    (mpirun -np 2, one thread each; RANKS=0 skips it): its wall seconds,
    the speedup, each rank's peak RSS (timing.json) and whether every
    output file is the one-thread run's. On SPEEDUP_FABRIC
    (default fattree:8) the pair runs PAIRS times (default 3), alternating,
    and the speedup is the ratio of the medians (a shared machine's noise);
  * instructions per switch-hop: callgrind over the run only
    (--toggle-collect on VirtualClock::Run), 50 us of a permutation (every
    host to another at 30% of its link: the same load a host at every
    size; the web search workload starts a handful of flows in a small
    fabric's short run), on the build's -Dcpu=baseline twin (valgrind has
    no AVX-512); skipped above CALLGRIND_MAX switches (start-up under
    valgrind is ~50x slower).

  scale.py PFCFABRIC COST_PFCFABRIC OUT_DIR FABRIC...
  FABRIC: fattree:K or jellyfish:N:PORTS:SWITCH_PORTS[:SEED] (pfc-tagger's
  generators). Writes OUT_DIR/fabric_scale.png and fabric_scale.csv; last line
  RESULT switches_max=<n> rss_mb_per_switch=<x> startup_s_at_max=<x>
         instr_per_hop_max_over_min=<x> threads2_speedup=<x> identical_t2=<0|1>
         ranks2_speedup=<x> identical_r2=<0|1> rank_rss_mb_at_max=<a+b>
         mhops_per_s_at_max_r2=<x> hop_rate_min_over_max=<x> threads2_balance=<x>
hop_rate_min_over_max: the hops per CPU second of the fabric with the fewest
switches over the one with the most (one thread; the issue's "within 2x"),
each the median of HOP_PAIRS (default 3) one-thread runs that alternate
between the two (small, big, small, big, ...): run one after the other
once, the shared machine's load moved the ratio by more than 10%.
threads2_speedup and ranks2_speedup are SPEEDUP_FABRIC's (na when it is
not in the set); threads2_balance too, the median of its two-thread runs'
timing.json balance (the threads' mean seconds in windows over the slowest
thread's, window by window: 1 when none waits for another).
"""
import csv
import filecmp
import json
import os
import random
import statistics
import subprocess
import sys

from pfclib.fabric_results import port_sum, results
from pfclib import bench_env
from pfclib.workload import generate, load_cdf

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LINK_GBPS, LOAD, SEED = 40, 0.3, 1
def env_count(name, default, least):
    return bench_env.env_count("fabric_scale", name, default, least)


CALLGRIND_MAX = env_count("CALLGRIND_MAX", 400, 0)
PERM_US = 50  # the callgrind run's length
HOST_MS = 1024  # hosts x ms of the timed run (at least 1 ms)
SPEEDUP_FABRIC = os.environ.get("SPEEDUP_FABRIC", "fattree:8")
PAIRS = env_count("PAIRS", 3, 1)
HOP_PAIRS = env_count("HOP_PAIRS", 3, 1)
RANKS = env_count("RANKS", 2, 0)
# Open MPI refuses root unless told (CI and this machine run as root).
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
OUTPUTS = ("results.json", "flows.csv", "ports.csv", "fct.csv")


def fabric_file(path, gen, hosts, window_ms, run_ms):
    cdf = load_cdf(os.path.join(ROOT, "configs", "workloads", "websearch.cdf"))
    flows = generate(hosts, LINK_GBPS * 1e9, LOAD, window_ms * 1e6, cdf, SEED) if hosts else []
    lines = [f"fabric: {{ clock: virtual, duration: {run_ms}ms, bin: 1ms, seed: {SEED} }}",
             f"topology: {{ gen: '{gen}' }}",
             f"links: {{ rate: {LINK_GBPS}G, delay: 1us }}",
             f"switch: {{ config: {ROOT}/configs/fabric/switch-lossless.yaml }}",
             "rc: { mtu: 1000 }"]
    if flows:
        lines.append("flows:")
    for k, (src, dst, size, start) in enumerate(flows):
        lines.append(f"  - {{ name: w{k}, from: {src}, to: {dst}, dscp: 1, prio: 1, "
                     f"transport: rc, bytes: {size}, start: {start}ns }}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return len(flows)


def permutation_file(path, gen, hosts, run_us):
    """Every host sends 1000-byte frames at 30% of its link to another host
    (a seeded random derangement): the same load a host whatever the
    fabric's size, so instructions per hop compare across sizes."""
    rng = random.Random(SEED)
    dst = hosts[:]
    while any(a == b for a, b in zip(hosts, dst)):
        rng.shuffle(dst)
    lines = [f"fabric: {{ clock: virtual, duration: {run_us}us, bin: {run_us}us, seed: {SEED} }}",
             f"topology: {{ gen: '{gen}' }}",
             f"links: {{ rate: {LINK_GBPS}G, delay: 1us }}",
             f"switch: {{ config: {ROOT}/configs/fabric/switch-lossless.yaml }}", "flows:"]
    lines += [f"  - {{ name: p{k}, from: {a}, to: {b}, dscp: 1, prio: 1, rate: {LINK_GBPS * LOAD:g}G }}"
              for k, (a, b) in enumerate(zip(hosts, dst))]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def run(cmd, env=None):
    """(returncode, stdout+stderr, maxrss MB) of a child."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, out, ru.ru_maxrss / 1024


def hops_of(d):
    return port_sum(results(d), "rx_packets")


def measure(fabric, cost_fabric, out, gen):
    tag = gen.replace(":", "_")
    # The fabric's hosts as the fabric names them (--check writes hosts.json).
    probe = os.path.join(out, tag + "-idle.yaml")
    fabric_file(probe, gen, [], 1, 1)
    rc, log, _ = run([fabric, "--fabric", probe, "--out", os.path.join(out, tag + "-check"),
                      "--check"])
    if rc != 0:
        sys.exit(f"fabric_scale: {gen}: pfcfabric --check failed:\n{log}")
    hosts = [h["name"] for h in
             json.load(open(os.path.join(out, tag + "-check", "hosts.json")))["hosts"]]
    switches = len(json.load(open(os.path.join(out, tag + "-check", "topology.json")))["nodes"]) \
        - len(hosts)
    path = os.path.join(out, tag + ".yaml")
    run_ms = max(1, -(-HOST_MS // len(hosts)))
    flows = fabric_file(path, gen, hosts, run_ms, run_ms)
    d, d2, dr = (os.path.join(out, tag + x) for x in ("", "-t2", "-r2"))
    walls = {"t1": [], "t2": [], "r2": []}
    cpus_t1, balance_t2 = [], []
    rss_mb, t = 0, None
    sides = [("t1", d, [fabric, "--threads", "1"]), ("t2", d2, [fabric, "--threads", "2"])]
    if RANKS > 1:
        sides.append(("r2", dr, ["mpirun", "-np", str(RANKS), "--bind-to", "none",
                                 "--oversubscribe", fabric]))
    for _ in range(PAIRS if gen == SPEEDUP_FABRIC else 1):
        for side, dd, cmd in sides:
            rc, log, rss = run(cmd + ["--fabric", path, "--out", dd], MPI_ENV)
            if rc != 0:
                sys.exit(f"fabric_scale: {gen}: {' '.join(cmd)} failed:\n{log}")
            timing = json.load(open(os.path.join(dd, "timing.json")))
            walls[side].append(timing["wall_seconds"])
            if side == "t1":
                rss_mb, t = rss, timing
                cpus_t1.append(timing["cpu_seconds"])
            if side == "t2":
                balance_t2.append(timing["threads"]["balance"])
    run_s, run_s2 = statistics.median(walls["t1"]), statistics.median(walls["t2"])

    def same_as_one(dd):
        return all(filecmp.cmp(os.path.join(d, f), os.path.join(dd, f), shallow=False)
                   for f in OUTPUTS if os.path.exists(os.path.join(d, f)))
    same = same_as_one(d2)
    hops = hops_of(d)
    # path and cpus_t1 serve hop_rate_pairs; main drops them before the CSV.
    row = {"fabric": gen, "path": path, "cpus_t1": cpus_t1,
           "switches": switches, "hosts": len(hosts), "run_ms": run_ms, "flows": flows,
           "rss_mb": round(rss_mb), "startup_s": round(t["startup_seconds"], 2),
           "run_s": round(run_s, 2), "hops": hops,
           "mhops_per_s": round(hops / statistics.median(cpus_t1) / 1e6, 3),
           "run_s_t2": round(run_s2, 2), "speedup_t2": round(run_s / run_s2, 2),
           "balance_t2": round(statistics.median(balance_t2), 3),
           "identical_t2": int(same),
           "pool_mbufs": t["pool_mbufs_populated"], "instr_per_hop": "",
           "run_s_r2": "", "speedup_r2": "", "identical_r2": "", "rank_rss_mb": ""}
    if RANKS > 1:
        run_r = statistics.median(walls["r2"])
        ranks_rss = json.load(open(os.path.join(dr, "timing.json")))["peak_rss_mb"]
        row.update(run_s_r2=round(run_r, 2), speedup_r2=round(run_s / run_r, 2),
                   identical_r2=int(same_as_one(dr)),
                   rank_rss_mb="+".join(str(x) for x in ranks_rss))
    if cost_fabric and switches <= CALLGRIND_MAX:
        short = os.path.join(out, tag + "-short.yaml")
        permutation_file(short, gen, hosts, PERM_US)
        cg = os.path.join(out, tag + ".callgrind")
        rc, log, _ = run(["valgrind", "--tool=callgrind", "--toggle-collect=pfc::emulator::VirtualClock::Run(*",
                          f"--callgrind-out-file={cg}", cost_fabric, "--fabric", short, "--out",
                          os.path.join(out, tag + "-short")])
        if rc != 0:
            sys.exit(f"fabric_scale: {gen}: callgrind run failed:\n{log}")
        ir = None
        for line in open(cg):
            if line.startswith("summary:") or line.startswith("totals:"):
                ir = int(line.split()[1])
        short_hops = hops_of(os.path.join(out, tag + "-short"))
        if ir and short_hops:
            row["instr_per_hop"] = round(ir / short_hops)
    print(("{fabric:<22} {switches:>8} {hosts:>6} {run_ms:>6} {flows:>6} {rss_mb:>7} {startup_s:>9} "
           "{run_s:>7} {hops:>9} {mhops_per_s:>10} {instr_per_hop:>10} {run_s_t2:>8} "
           "{speedup_t2:>8} {balance_t2:>8} {identical_t2:>6} {run_s_r2:>8} {speedup_r2:>8} {identical_r2:>6} "
           "{rank_rss_mb:>12}").format(**row), flush=True)
    return row


def hop_rate_pairs(fabric, out, small, big):
    """HOP_PAIRS - 1 more one-thread runs of the smallest and the largest
    fabric, alternating; each row's rate becomes the median of its runs.
    Returns each round's small-over-big rate ratio."""
    for _ in range(HOP_PAIRS - 1):
        for r in (small, big):
            d = os.path.join(out, r["fabric"].replace(":", "_") + "-hop")
            rc, log, _ = run([fabric, "--threads", "1", "--fabric", r["path"], "--out", d])
            if rc != 0:
                sys.exit(f"fabric_scale: {r['fabric']}: the hop-rate rerun failed:\n{log}")
            if hops_of(d) != r["hops"]:
                sys.exit(f"fabric_scale: {r['fabric']}: a rerun moved {hops_of(d)} hops, not {r['hops']}")
            r["cpus_t1"].append(json.load(open(os.path.join(d, "timing.json")))["cpu_seconds"])
    for r in (small, big):
        r["mhops_per_s"] = round(r["hops"] / statistics.median(r["cpus_t1"]) / 1e6, 3)
    return [round((small["hops"] / a) / (big["hops"] / b), 2)
            for a, b in zip(small["cpus_t1"], big["cpus_t1"])]


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 5, figsize=(25, 4.4))
    for r in rows:  # the larger rank's peak, beside the one process's
        r["rank_rss_max"] = max(int(x) for x in r["rank_rss_mb"].split("+")) if r["rank_rss_mb"] else ""
    # (key, label, the key's series' label suffix); a panel's extra series:
    # (key, label suffix, line style)
    panels = [("rss_mb", "peak RSS (MB)", ", one process", [("rank_rss_max", ", a rank of two", ":")]),
              ("startup_s", "start-up (s)", "", []),
              ("instr_per_hop", "instructions per switch-hop (callgrind)", "", []),
              ("mhops_per_s", "Mhops per CPU second, 30% load (one thread)", "", []),
              ("speedup_t2", "speedup over one thread (wall time, same results)", ", two threads",
               [("speedup_r2", ", two ranks", ":")])]
    for ax, (key, label, main_suffix, extra) in zip(axes, panels):
        for fam, marker in (("fattree", "o-"), ("jellyfish", "s--")):
            for k, suffix, style in [(key, main_suffix, None)] + extra:
                pts = [(r["switches"], r[k]) for r in rows if r["fabric"].startswith(fam) and r[k] != ""]
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts],
                            marker if style is None else marker[0] + style, label=fam + suffix)
        ax.set_xlabel("switches")
        ax.set_title(label)
        top = max((r[k] for r in rows for k in [key] + [e[0] for e in extra] if r[k] != ""),
                  default=1)
        ax.set_ylim(0, top * 1.15)  # a lone point at the maximum stays in view
        ax.grid(alpha=0.3)
        if ax.lines:  # a panel with nothing measured (CALLGRIND_MAX=0, RANKS=0) has no legend
            ax.legend()
    fig.suptitle("pfcfabric at scale, virtual clock (bench/fabric/scale.sh)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    fabric, cost_fabric, out = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    print(f"{'fabric':<22} {'switches':>8} {'hosts':>6} {'run_ms':>6} {'flows':>6} {'rss_mb':>7} {'startup_s':>9} "
          f"{'run_s':>7} {'hops':>9} {'Mhops/s':>10} {'instr/hop':>10} {'run_s_t2':>8} "
          f"{'speedup':>8} {'balance':>8} {'same':>6} {'run_s_r2':>8} {'speedup':>8} {'same':>6} "
          f"{'rank_rss_mb':>12}")
    rows = [measure(fabric, cost_fabric, out, gen) for gen in sys.argv[4:]]
    if len(rows) >= 2 and HOP_PAIRS > 1:
        small_row = min(rows, key=lambda r: r["switches"])
        big_row = max(rows, key=lambda r: r["switches"])
        rounds = hop_rate_pairs(fabric, out, small_row, big_row)
        print(f"hop rate, {small_row['fabric']} over {big_row['fabric']}, alternating one-thread runs: "
              f"{', '.join(str(x) for x in rounds)} (medians: {small_row['mhops_per_s']} and "
              f"{big_row['mhops_per_s']} Mhops/s)")
    for r in rows:
        del r["path"], r["cpus_t1"]
    with open(os.path.join(out, "fabric_scale.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    plot(rows, os.path.join(out, "fabric_scale.png"))
    big = max(rows, key=lambda r: r["switches"])
    # Instructions per hop of the largest fabric measured over the smallest's.
    cg = sorted((r for r in rows if r["instr_per_hop"] != ""), key=lambda r: r["switches"])
    ratio = round(cg[-1]["instr_per_hop"] / cg[0]["instr_per_hop"], 2) if len(cg) >= 2 else "na"
    small = min(rows, key=lambda r: r["switches"])
    rate_ratio = round(small["mhops_per_s"] / big["mhops_per_s"], 2) \
        if len(rows) >= 2 and big["mhops_per_s"] else "na"
    sp = [r for r in rows if r["fabric"] == SPEEDUP_FABRIC]
    speedup = sp[0]["speedup_t2"] if sp else "na"
    balance = sp[0]["balance_t2"] if sp else "na"
    rows_r = [r for r in rows if r["identical_r2"] != ""]
    speedup_r = sp[0]["speedup_r2"] if sp and sp[0]["speedup_r2"] != "" else "na"
    if any(not r["identical_r2"] for r in rows_r):
        print("fabric_scale: two ranks did NOT give the one-process results for: " +
              ", ".join(r["fabric"] for r in rows_r if not r["identical_r2"]))
    if any(not r["identical_t2"] for r in rows):
        print("fabric_scale: two threads did NOT give the one-thread results for: " +
              ", ".join(r["fabric"] for r in rows if not r["identical_t2"]))
    print(f"RESULT switches_max={big['switches']} rss_mb_per_switch={big['rss_mb'] / big['switches']:.1f} "
          f"startup_s_at_max={big['startup_s']} instr_per_hop_max_over_min={ratio} "
          f"threads2_speedup={speedup} identical_t2={int(all(r['identical_t2'] for r in rows))} "
          f"ranks2_speedup={speedup_r} "
          f"identical_r2={int(all(r['identical_r2'] for r in rows_r)) if rows_r else 'na'} "
          f"rank_rss_mb_at_max={big['rank_rss_mb'] or 'na'} "
          f"mhops_per_s_at_max_r2={round(big['hops'] / big['run_s_r2'] / 1e6, 3) if big['run_s_r2'] else 'na'} "
          f"hop_rate_min_over_max={rate_ratio} threads2_balance={balance}")


if __name__ == "__main__":
    main()
