#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The training runs of a profile-guided pfcfabric build (tools/build-pgo.sh):
fabric files that drive the emulator's usual paths, written into OUT_DIR, one
path a line on stdout.

The training is deliberately none of the experiments the PGO build is
measured on (the HPCC simulator's 320-host fat-tree, bench/fabric/scale.py's
permutations): a k=8 fat-tree (80 switches, 128 hosts, 40 Gb/s) under
WebSearch flows (configs/workloads/websearch.cdf) at 40% load over RC,
once with DCQCN on ECN marks and once with HPCC on INT trailers, with
configs/fabric/switch-lossless-ecn.yaml (and an `int` section for HPCC) on
every switch; and the HPCC work's simulator's conventions (its DCQCN run's
config.txt, bench/hpcc/cases/fat320-websearch50-5ms, through
tools/hpcc_import.py: dynamic PFC thresholds, marking at dequeue, its ECMP
hash) on a leaf-spine of its own (8 ToRs of 8 hosts at 100 Gb/s, 4 spines
at 400 Gb/s) under WebSearch flows at 30% load. A profile from these guides the compiler's
layout and inlining; it changes no result (the build's outputs are the
release build's, byte for byte: bench/fabric/identical.sh).

  tools/pgo_train.py OUT_DIR
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pfclib.fabric_files import flow, write  # noqa: E402
from pfclib.workload import generate, load_cdf  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
K = 8
HOSTS = [f"h{p}_{i}_{m}" for p in range(K) for i in range(K // 2) for m in range(K // 2)]
LINK_GBPS, LOAD, SEED = 40, 0.4, 7
WEBSEARCH = os.path.join(ROOT, "configs", "workloads", "websearch.cdf")


def websearch(out, cc, window_ms, run_ms):
    flows = generate(HOSTS, LINK_GBPS * 1e9, LOAD, window_ms * 1e6, load_cdf(WEBSEARCH), SEED)
    switch = os.path.join(ROOT, "configs", "fabric", "switch-lossless-ecn.yaml")
    if cc == "hpcc":  # the switches fill the INT trailers HPCC's senders add
        with open(switch) as f:
            text = f.read()
        switch = os.path.join(out, "train-switch-int.yaml")
        with open(switch, "w") as f:
            f.write(text + "int: { priorities: [1] }\n")
    spec = {"fabric": {"clock": "virtual", "duration": f"{run_ms}ms", "bin": "250us", "seed": SEED},
            "topology": {"gen": f"fattree:{K}"},
            "links": {"rate": f"{LINK_GBPS}G", "delay": "1us"},
            "switch": {"config": switch},
            "rc": {"mtu": 1000, "ack_interval": 1},
            "flows": [flow(f"w{k}", src, dst, dscp=1, prio=1, transport="rc", bytes=size,
                           start=f"{start}ns", ecn="ect0", cc=cc)
                      for k, (src, dst, size, start) in enumerate(flows)]}
    return write(os.path.join(out, f"train-websearch-{cc}.yaml"), spec)


def hpcc_case(out, window_ms):
    """A leaf-spine in the simulator's own files (topology, flows; its
    config from the in-tree case), converted with tools/hpcc_import.py."""
    tors, per_tor, spines = 8, 8, 4
    hosts = tors * per_tor
    links = [(h, hosts + h // per_tor, "100Gbps") for h in range(hosts)]
    links += [(hosts + t, hosts + tors + s, "400Gbps") for t in range(tors) for s in range(spines)]
    topo = os.path.join(out, "hpcc-topology.txt")
    with open(topo, "w") as f:
        f.write(f"{hosts + tors + spines} {tors + spines} {len(links)}\n")
        f.write(" ".join(str(n) for n in range(hosts, hosts + tors + spines)) + "\n")
        f.writelines(f"{a} {b} {rate} 1000ns 0.000000\n" for a, b, rate in links)
    # Flows from the simulator's 2 s mark, as its experiments start them.
    flows = generate(list(range(hosts)), 100e9, 0.3, window_ms * 1e6, load_cdf(WEBSEARCH), SEED,
                     2_000_000_000)
    fl = os.path.join(out, "hpcc-flows.txt")
    with open(fl, "w") as f:
        f.write(f"{len(flows)}\n")
        f.writelines(f"{a} {b} 3 100 {size} {start / 1e9:.9f}\n" for a, b, size, start in flows)
    conv = os.path.join(out, "train-hpcc-import")
    config = os.path.join(ROOT, "bench", "hpcc", "cases", "fat320-websearch50-5ms", "config.txt")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "hpcc_import.py"), "--topology", topo,
                        "--flows", fl, "--config", config, "--out", conv],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"pgo_train: hpcc_import failed:\n{r.stdout}{r.stderr}")
    return os.path.join(conv, "fabric.yaml")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    print(websearch(out, "dcqcn", 2, 4))
    print(websearch(out, "hpcc", 1, 3))
    print(hpcc_case(out, 4))


if __name__ == "__main__":
    main()
