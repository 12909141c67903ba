#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""pfcfabric and ns-3 on the same fabric and traffic (bench/fabric/vs_ns3.sh
builds the ns-3 scenario and calls this).

  vs_ns3.py PFCFABRIC COST_PFCFABRIC NS3_SCENARIO OUT_DIR
  env: CG_MS (1) virtual ms under callgrind, WALL_MS (10) for wall time,
       RUNS (3) alternating wall-time runs of each

A link-hop is a frame sent over a link in either direction (pfcfabric:
every port's link_tx_frames plus every host's tx_frames; ns-3: every
point-to-point device's PhyTxEnd). Last line
  RESULT pfcfabric_instr_per_hop=<n> ns3_instr_per_hop=<n> instr_ratio=<x>
         pfcfabric_wall_s=<x> ns3_wall_s=<x> wall_ratio=<x>
"""
import json
import os
import statistics
import subprocess
import sys

from pfclib.fabric_results import port_sum, results

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FAB = os.path.join(ROOT, "configs/fabric")
RATE_BPS, DELAY_NS, FLOW_BPS, FRAME = 40_000_000_000, 1000, 10_000_000_000, 1000
# Pod 1's hosts to pod 2's: every flow crosses a ToR, a leaf, a spine, a
# leaf and a ToR.
FLOWS = [(f"H{i}", f"H{i + 8}") for i in range(1, 9)]


def fabric_file(path, ms):
    lines = [f"fabric: {{ clock: virtual, duration: {ms}ms, bin: 1ms, seed: 1 }}",
             f"include: {FAB}/clos-fig2.topo.yaml",
             f"links: {{ rate: {RATE_BPS // 10**9}G, delay: {DELAY_NS}ns }}",
             f"switch: {{ config: {FAB}/switch-lossless.yaml }}", "flows:"]
    lines += [f"  - {{ name: {s}-{d}, from: {s}, to: {d}, dscp: 1, prio: 1, "
              f"rate: {FLOW_BPS // 10**9}G, frame: {FRAME}, start: 0 }}" for s, d in FLOWS]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def callgrind_total(path):
    total = None
    for line in open(path):
        if line.startswith(("summary:", "totals:")):
            total = int(line.split()[1])
    return total


def measured(cmd, what, callgrind=None, toggle=None):
    """Runs cmd, under callgrind counting only `toggle` when callgrind names
    the output file; exits naming `what` if it fails."""
    if callgrind:
        cmd = ["valgrind", "--tool=callgrind", f"--toggle-collect={toggle}",
               f"--callgrind-out-file={callgrind}"] + cmd
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"fabric_vs_ns3: {what} failed:\n{p.stdout}{p.stderr}")
    return p


def run_pfc(binary, out, ms, callgrind=None):
    path = os.path.join(out, f"fabric-{ms}ms.yaml")
    fabric_file(path, ms)
    res = os.path.join(out, f"pfcfabric-{ms}ms")
    measured([binary, "--fabric", path, "--out", res], "pfcfabric", callgrind,
             "pfc::emulator::VirtualClock::Run(*")
    r = results(res)
    hops = port_sum(r, "link_tx_frames")
    hops += sum(h["tx_frames"] for h in r["hosts"].values())
    wall = json.load(open(os.path.join(res, "timing.json")))["wall_seconds"]
    lossless = r["lossless_drops"]
    return hops, wall, lossless


def run_ns3(binary, topo, flows, ms, callgrind=None):
    p = measured([binary, topo, flows, str(RATE_BPS), str(DELAY_NS), str(ms * 1_000_000)],
                 "the ns-3 scenario", callgrind, "ns3::Simulator::Run*")
    kv = dict(x.split("=") for x in p.stdout.split())
    return int(kv["link_hops"]), float(kv["wall_s"]), int(kv["sink_bytes"])


def plot(path, pfc_ipc, ns3_ipc, pfc_wall, ns3_wall, wall_ms):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    names = ["pfcfabric\n(PFC, lossless buffers)", "ns-3 3.37\n(UDP, no PFC)"]
    for ax, vals, title in ((axes[0], [pfc_ipc, ns3_ipc], "instructions per link-hop (callgrind)"),
                            (axes[1], [pfc_wall, ns3_wall], f"wall seconds for {wall_ms} ms")):
        bars = ax.bar(names, vals, color=["tab:blue", "tab:gray"])
        ax.bar_label(bars, labels=[f"{v:,.0f}" if v >= 100 else f"{v:.2f}" for v in vals])
        ax.set_title(title)
        ax.set_ylim(0, max(vals) * 1.2)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("Tagger Fig. 2 Clos, 8 flows of 10 Gb/s across pods (bench/fabric/vs_ns3.sh)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    pfc, pfc_cost, ns3, out = sys.argv[1:]
    cg_ms, wall_ms = int(os.environ.get("CG_MS", "1")), int(os.environ.get("WALL_MS", "10"))
    runs = int(os.environ.get("RUNS", "3"))
    os.makedirs(out, exist_ok=True)
    # The topology file both read: pfcfabric --check writes it.
    probe = os.path.join(out, "check.yaml")
    fabric_file(probe, 1)
    p = subprocess.run([pfc, "--fabric", probe, "--out", os.path.join(out, "check"), "--check"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"fabric_vs_ns3: pfcfabric --check failed:\n{p.stdout}{p.stderr}")
    topo = os.path.join(out, "check", "topology.json")
    flows = os.path.join(out, "flows.txt")
    with open(flows, "w") as f:
        f.writelines(f"{s} {d} {FLOW_BPS} {FRAME} 0\n" for s, d in FLOWS)

    cg = os.path.join(out, "pfcfabric.callgrind")
    pfc_hops, _, lossless = run_pfc(pfc_cost, out, cg_ms, cg)
    pfc_ipc = callgrind_total(cg) / pfc_hops
    cg = os.path.join(out, "ns3.callgrind")
    ns3_hops, _, _ = run_ns3(ns3, topo, flows, cg_ms, cg)
    ns3_ipc = callgrind_total(cg) / ns3_hops
    print(f"callgrind, {cg_ms} ms: pfcfabric {pfc_hops} link-hops, {pfc_ipc:.0f} instructions each "
          f"(lossless drops {lossless}); ns-3 {ns3_hops} link-hops, {ns3_ipc:.0f} each")
    walls = {"pfc": [], "ns3": []}
    for k in range(runs):
        h, w, _ = run_pfc(pfc, out, wall_ms)
        walls["pfc"].append(w)
        h3, w3, sink = run_ns3(ns3, topo, flows, wall_ms)
        walls["ns3"].append(w3)
        print(f"run {k}: pfcfabric {w:.3f} s ({h} link-hops), ns-3 {w3:.3f} s ({h3} link-hops, "
              f"sinks got {sink} bytes)")
    pw, nw = statistics.median(walls["pfc"]), statistics.median(walls["ns3"])
    plot(os.path.join(out, "fabric_vs_ns3.png"), pfc_ipc, ns3_ipc, pw, nw, wall_ms)
    print(f"RESULT pfcfabric_instr_per_hop={pfc_ipc:.0f} ns3_instr_per_hop={ns3_ipc:.0f} "
          f"instr_ratio={ns3_ipc / pfc_ipc:.1f} pfcfabric_wall_s={pw:.3f} ns3_wall_s={nw:.3f} "
          f"wall_ratio={nw / pw:.1f}")


if __name__ == "__main__":
    main()
