#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Flow completion times under a datacenter workload, as the HPCC paper
plots them: the web search flow-size distribution
(configs/workloads/websearch.cdf) at 30% and 50% load of the host links,
Poisson arrivals, random pairs (tools/pfclib/workload.py), on a k = 4
fat-tree (pfc-tagger's generator: 20 switches, 16 hosts) at 40 Gb/s,
switches as configs/fabric/switch-lossless-ecn.yaml, every flow an RC queue
pair writing one message of its size (1,000-byte packets, an ACK a packet),
ECN-capable and lossless; with DCQCN (rate-increase timer 55 us, as in
bench/dcqcn/incast.sh) and with none (PFC alone). Arrivals for WINDOW_MS,
then the run goes on until RUN_MS so the flows can finish. Virtual clock,
seed fixed: a rerun is byte-identical.

Per run: every flow's completion time and slowdown (fct.csv: from its
start to the ACK of its last packet, against the flow alone on an idle
path), the median and 99th percentile slowdown of
flows under 100 KB and over 1 MB, the time switch egresses spent paused
(summed over all of them), the switches' ingress buffers of the lossless
priority sampled every 250 us during the arrivals (queue length, as
ports.csv records it), lossless drops. Figure: slowdown by flow size
(median, 95th, 99th) for each load, the pause time, and the distribution
of the queue samples.

  fct_workload.py FABRIC_BIN OUT_DIR [WINDOW_MS] [RUN_MS] [LOADS...]
Last line: RESULT flows=<n> completed=<n> small_p99_slowdown_dcqcn=<x>
  small_p99_slowdown_none=<x> pause_ms_dcqcn=<x> pause_ms_none=<x> (the
  first load; the others in the lines above)
"""
import csv
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

from pfclib.fabric_results import prio_rows, results  # noqa: E402
from pfclib.workload import generate, load_cdf  # noqa: E402

HOSTS = [f"h{p}_{i}_{m}" for p in range(4) for i in range(2) for m in range(2)]
LINK_GBPS, MTU, SEED = 40, 1000, 1
BUCKETS = [(0, 10_000, "<10K"), (10_000, 100_000, "10K-100K"), (100_000, 1_000_000, "100K-1M"),
           (1_000_000, 10_000_000, "1M-10M"), (10_000_000, 1e18, ">10M")]


def fabric_file(out, load, cc, window_ms, run_ms):
    cdf = load_cdf(os.path.join(ROOT, "configs", "workloads", "websearch.cdf"))
    flows = generate(HOSTS, LINK_GBPS * 1e9, load, window_ms * 1e6, cdf, SEED)
    lines = [f"fabric: {{ clock: virtual, duration: {run_ms}ms, bin: 250us, seed: {SEED} }}",
             "topology: { gen: fattree:4 }",
             f"links: {{ rate: {LINK_GBPS}G, delay: 1us }}",
             f"switch: {{ config: {ROOT}/configs/fabric/switch-lossless-ecn.yaml }}",
             "dcqcn: { rp_timer: 55us }",
             f"rc: {{ mtu: {MTU}, ack_interval: 1 }}",
             "flows:"]
    for k, (src, dst, size, start) in enumerate(flows):
        lines.append(f"  - {{ name: w{k}, from: {src}, to: {dst}, dscp: 1, prio: 1, transport: rc, "
                     f"bytes: {size}, start: {start}ns, ecn: ect0, cc: {cc} }}")
    path = os.path.join(out, f"web-{round(load * 100)}-{cc}.yaml")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def pct(xs, q):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def run(fabric, out, load, cc, window_ms, run_ms):
    d = os.path.join(out, f"web-{round(load * 100)}-{cc}")
    p = subprocess.run([fabric, "--fabric", fabric_file(out, load, cc, window_ms, run_ms), "--out", d],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"pfcfabric failed (load {load}, {cc}):\n{p.stdout}{p.stderr}")
    rows = list(csv.DictReader(open(os.path.join(d, "fct.csv"))))
    r = results(d)
    done = [x for x in rows if x["completed"] == "1"]
    sd = [(int(x["bytes"]), float(x["slowdown"])) for x in done]
    small = [s for b, s in sd if b < 100_000]
    large = [s for b, s in sd if b > 1_000_000]
    pause_ns = sum(q["paused_ns"] for _, _, q in prio_rows(r) if q["lossless"])
    # Queue samples: every switch port's lossless ingress buffer, each bin of the arrivals.
    queue_kb = sorted(int(x["buffer_bytes"]) / 1000 for x in csv.DictReader(open(os.path.join(d, "ports.csv")))
                      if x["prio"] == "1" and float(x["t_ms"]) <= window_ms)
    return {"flows": len(rows), "completed": len(done), "lossless_drops": r["lossless_drops"],
            "queue_kb": queue_kb, "queue_p99_kb": pct(queue_kb, 0.99),
            "small_p50": pct(small, 0.5), "small_p99": pct(small, 0.99),
            "large_p50": pct(large, 0.5), "large_p99": pct(large, 0.99),
            "pause_ms": pause_ns / 1e6,
            "buckets": [(label, pct([s for b, s in sd if lo <= b < hi], 0.5),
                         pct([s for b, s in sd if lo <= b < hi], 0.95),
                         pct([s for b, s in sd if lo <= b < hi], 0.99),
                         sum(1 for b, _ in sd if lo <= b < hi)) for lo, hi, label in BUCKETS]}


def plot(res, loads, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker  # noqa: F401 (the slowdown axis' labels)
    fig, ax = plt.subplots(1, len(loads) + 2, figsize=(5.5 * (len(loads) + 2), 4.6))
    style = {"none": ("tab:gray", "PFC alone"), "dcqcn": ("tab:blue", "PFC + DCQCN")}
    for k, load in enumerate(loads):
        a = ax[k]
        for cc, (color, label) in style.items():
            b = res[(load, cc)]["buckets"]
            xs = range(len(b))
            a.plot(xs, [x[1] for x in b], color=color, marker="o", label=f"{label}: median")
            a.plot(xs, [x[2] for x in b], color=color, marker="^", linestyle="--", label=f"{label}: 95th")
            a.plot(xs, [x[3] for x in b], color=color, marker="s", linestyle=":", label=f"{label}: 99th")
        b = res[(load, "dcqcn")]["buckets"]
        a.set_xticks(range(len(b)))
        a.set_xticklabels([f"{x[0]}\n({x[4]} flows)" for x in b], fontsize=8)
        a.set_yscale("log")
        a.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        a.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        a.set_ylabel("FCT slowdown (vs the flow alone)")
        a.set_xlabel("flow size")
        a.set_title(f"web search at {round(load * 100)}% load")
        a.legend(fontsize=7)
    a = ax[-2]
    xs = range(len(loads))
    a.bar([x - 0.2 for x in xs], [res[(ld, "none")]["pause_ms"] for ld in loads], width=0.4,
          color="tab:gray", label="PFC alone")
    a.bar([x + 0.2 for x in xs], [res[(ld, "dcqcn")]["pause_ms"] for ld in loads], width=0.4,
          color="tab:blue", label="PFC + DCQCN")
    a.set_xticks(list(xs))
    a.set_xticklabels([f"{round(ld * 100)}% load" for ld in loads])
    a.set_ylabel("ms, summed over the switches' egresses")
    a.set_title("time paused")
    a.legend(fontsize=8)
    a = ax[-1]
    for k, load in enumerate(loads):
        for cc, (color, label) in style.items():
            q = res[(load, cc)]["queue_kb"]
            if q:
                a.plot(q, [(i + 1) / len(q) for i in range(len(q))], color=color,
                       linestyle="-" if k == 0 else "--", label=f"{label}, {round(load * 100)}%")
    a.set_xscale("symlog", linthresh=1)
    a.set_xlabel("lossless ingress buffer of a switch port (KB), every 250 us")
    a.set_ylabel("fraction of samples")
    a.set_title("queue length while flows arrive")
    a.legend(fontsize=8)
    fig.suptitle("FCT under the web search workload, k=4 fat-tree at 40 Gb/s (virtual clock)")
    fig.tight_layout()
    path = os.path.join(out, "fct_workload.png")
    fig.savefig(path, dpi=110)
    return path


def main():
    fabric, out = sys.argv[1], sys.argv[2]
    window_ms = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    run_ms = int(sys.argv[4]) if len(sys.argv) > 4 else 60
    loads = [float(x) for x in sys.argv[5:]] or [0.3, 0.5]
    os.makedirs(out, exist_ok=True)
    res = {}
    for load in loads:
        for cc in ("none", "dcqcn"):
            x = res[(load, cc)] = run(fabric, out, load, cc, window_ms, run_ms)
            print(f"load {round(load * 100)}% {cc:6s}: {x['completed']}/{x['flows']} flows completed; "
                  f"slowdown <100KB median {x['small_p50']:.2f} p99 {x['small_p99']:.2f}, "
                  f">1MB median {x['large_p50']:.2f} p99 {x['large_p99']:.2f}; paused {x['pause_ms']:.2f} ms; "
                  f"queue p99 {x['queue_p99_kb']:.1f} KB; lossless drops {x['lossless_drops']}")
    print("figure:", plot(res, loads, out))
    json.dump({f"{k[0]}-{k[1]}": {a: b for a, b in v.items() if a != "queue_kb"} for k, v in res.items()},
              open(os.path.join(out, "summary.json"), "w"), indent=1)
    ld = loads[0]
    n, d = res[(ld, "none")], res[(ld, "dcqcn")]
    flows = sum(v["flows"] for v in res.values())
    done = sum(v["completed"] for v in res.values())
    print(f"RESULT flows={flows} completed={done} small_p99_slowdown_dcqcn={d['small_p99']:.2f} "
          f"small_p99_slowdown_none={n['small_p99']:.2f} pause_ms_dcqcn={d['pause_ms']:.2f} "
          f"pause_ms_none={n['pause_ms']:.2f} queue_p99_kb_dcqcn={d['queue_p99_kb']:.1f} "
          f"queue_p99_kb_none={n['queue_p99_kb']:.1f} "
          f"lossless_drops={sum(v['lossless_drops'] for v in res.values())}")


if __name__ == "__main__":
    main()
