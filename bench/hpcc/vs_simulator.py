#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""pfcfabric side by side with the HPCC work's ns-3 RDMA simulator (issue 40)
on the same topology, flow and config files: for each case, the simulator
(scratch/third, built by bench/hpcc/vs_hpcc_simulator.sh) runs the files with
its output paths moved into OUT_DIR/CASE/sim (SIM_KEEP=1: a run already
there is kept, the emulator's side alone runs again), tools/hpcc_import.py converts
the same three files (the config unchanged) into OUT_DIR/CASE/fabric, and
pfcfabric runs them into OUT_DIR/CASE/emu (on EMU_THREADS threads, default
1), each under /usr/bin/time (user + system CPU seconds, wall seconds,
peak RSS; the two sides run at once, one a core, or with SIDES=turns one
after the other, each alone). With SIM_FROM_REFERENCE=1 the simulator is not
run: its outputs and time.log kept in the reference folder are read instead,
and the output says so. With ANALYSE_ONLY=1 nothing runs: the outputs an
earlier run left in OUT_DIR are read again (tables, figure). SEEDS=N runs
each side N times (the simulator with ns-3's RngRun 1..N, the emulator with
fabric.seed 1..N: both draw their ECN marks from it) and adds a table of
per-flow mean FCTs over the runs: one run of each is one draw, and a few
flows sharing a marked queue finish 10-20% apart from draw to draw.

Flows are matched one by one on (source node, destination node, bytes,
start ns): the simulator's out_fct.txt (sip dip sport dport size start_ns
fct_ns standalone_fct_ns, IP 0x0b000001 + (id / 256) << 16 + (id % 256) << 8)
against the emulator's fct.csv (hosts H<id>, as hpcc_import names them).
Slowdown is FCT / the simulator's standalone FCT on BOTH sides (the flow
alone on its idle path), not fct.csv's own ideal. Pause frames: the
simulator's out_pfc.txt lines (time node type ifindex 1=pause/0=resume, one
per PFC frame a device received; its pause lasts until the resume); the
emulator's PFC frames sent by switch ports (pfc_xoff_tx, pfc_xon_tx, per
priority in results.json; pfc_refresh_tx apart, the XOFFs that keep a
pause from expiring, counted with the pauses before 2026-11-30) and hosts
(pfc_tx), and the time switch egresses and hosts spent paused (hosts'
paused_ns from 2026-11-30; before, switches alone). Drops: the
simulator's "Headroom full" lines in its log (its MMU drops a packet of a
lossless group whose headroom is full) against the emulator's lossless
drops. Paused links: the (sender, receiver) pairs each side paused and
how many both did (the same paths pause the same links), and each side's
pauses by kind of link (tor->host: a ToR pausing a host; agg, core: the
tiers above), a line of the table from 2026-11-30, and the time links of
each kind spent paused (the simulator's pause to resume, the emulator's
paused_ns of the paused end), a line from the same day; with QLEN_MON=1,
each side's egress queue integral by kind of port (switch->peer).

  vs_simulator.py FABRIC_BIN SIM_DIR REF_DIR OUT_DIR CASE...
CASE is a folder name under REF_DIR/runs (small, fat320-websearch30-5ms) or
bench/hpcc/cases (fat320-websearch50-5ms: its flow file made by the
archive's traffic_gen.py -l 0.5, which has no seed, kept), or a folder
holding config.txt and the files it names. Prints a table per case,
writes OUT_DIR/vs_hpcc_simulator.png and OUT_DIR/summary.json; last line
  RESULT <case>_p50_ratio_<bucket>=<x> ... <case>_ratio_p5/p50/p95=<x>
         <case>_cpu_s_sim=<x> <case>_cpu_s_emu=<x> <case>_wall_s_sim=<x>
         <case>_wall_s_emu=<x> ... <case>_drops_sim=<n> <case>_drops_emu=<n>
         <case>_paused_links_sim=<n> <case>_paused_links_emu=<n> <case>_paused_links_both=<n>
         <case>_paused_ms_<pauser>_<paused>_sim=<ms> ..._emu=<ms> (tor_host, agg_tor, ...)
"""
import csv
import json
import os
import shutil
import subprocess
import sys

import qlen

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from pfclib.hpcc_files import read_topology  # noqa: E402  (the converter's own reader)
# EMU_THREADS=N: the emulator's side on N threads (pfcfabric --threads N):
# the same results, its wall time and CPU seconds on N cores.
EMU_THREADS = int(os.environ.get("EMU_THREADS", "1"))
# EMU_QUANTUM=100ns: the emulator's side on a stepped clock (fabric.quantum
# added to the converted file): fewer switch rounds, answers a little off.
EMU_QUANTUM = os.environ.get("EMU_QUANTUM", "").strip()
# QLEN_MON=1: both sides' queue monitors over 100 ms from the case's
# QLEN_MON_START (bench/hpcc/qlen.py), queue-length percentiles compared.
QLEN_MON = os.environ.get("QLEN_MON", "0") == "1"
# SIDES=together (default): the two sides run at once, one a core, and
# see the same moment of a shared machine's load, but may also slow each
# other (memory bandwidth, the last-level cache). SIDES=turns: the
# simulator alone, then the emulator alone: the CPU seconds each takes on
# a machine it has to itself (on the fat-tree, pfcfabric took the same
# alone as beside the simulator: docs/explanation/emulator-scale.md).
SIDES = os.environ.get("SIDES", "together").strip()
if SIDES not in ("together", "turns"):
    sys.exit(f"vs_hpcc_simulator: SIDES: expected together or turns (got '{SIDES}')")
# SIM_TRACE=363,344: the simulator traces every packet event at these
# nodes (ENABLE_TRACE 1) into CASE/sim/out_mix.tr; bench/hpcc/sim_trace.sh
# prints it. For following a flow's packets through its queues.
SIM_TRACE = [n.strip() for n in os.environ.get("SIM_TRACE", "").split(",") if n.strip()]
if not all(n.isdigit() for n in SIM_TRACE):
    sys.exit(f"vs_hpcc_simulator: SIM_TRACE={os.environ['SIM_TRACE']!r}: expected the simulator's "
             f"node ids, comma-separated (e.g. 363,344)")
BUCKETS = [(0, 10_000, "<10KB", "lt10k"), (10_000, 100_000, "10-100KB", "10k_100k"),
           (100_000, 1_000_000, "100KB-1MB", "100k_1m"), (1_000_000, 1 << 62, ">1MB", "gt1m")]
OUTPUT_KEYS = {"TRACE_OUTPUT_FILE": "out_mix.tr", "FCT_OUTPUT_FILE": "out_fct.txt",
               "PFC_OUTPUT_FILE": "out_pfc.txt", "QLEN_MON_FILE": "out_qlen.txt"}


def pct(xs, p):
    """Nearest-rank percentile (p in 0..100) of a list; None when empty."""
    if not xs:
        return None
    s = sorted(xs)
    k = max(0, min(len(s) - 1, int(-(-p * len(s) // 100)) - 1))
    return s[k]


def ip_to_node(hexip):
    ip = int(hexip, 16)
    return ((ip >> 16) & 0xff) * 256 + ((ip >> 8) & 0xff)


def read_config(path):
    keys = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if w:
                keys.setdefault(w[0], w[1:])
    return keys


def case_dir(ref, case):
    d = next((c for c in (case, os.path.join(ref, "runs", case),
                          os.path.join(ROOT, "bench", "hpcc", "cases", case)) if os.path.isdir(c)), case)
    if not os.path.isfile(os.path.join(d, "config.txt")):
        sys.exit(f"vs_hpcc_simulator: no config.txt in {d}")
    return os.path.abspath(d)


def timed(cmd, cwd, log, env=None):
    """Starts cmd under /usr/bin/time (its figures in LOG.time)."""
    return subprocess.Popen(["/usr/bin/time", "-f", "%U %S %M %e", "-o", log + ".time"] + cmd,
                            cwd=cwd, stdout=open(log, "w"), stderr=subprocess.STDOUT, env=env)


def read_time(tf):
    """CPU and wall seconds, peak RSS (an earlier run's file may lack the wall time)."""
    f = open(tf).read().split()
    if len(f) >= 4 and "." in f[-1] and "." in f[-3]:
        u, s, m, e = f[-4:]
    else:
        (u, s, m), e = f[-3:], "nan"
    return {"cpu_s": float(u) + float(s), "rss_mb": int(m) / 1024, "wall_s": float(e)}


def reference_time(path):
    t = {}
    for line in open(path):
        k, _, v = line.strip().partition(": ")
        t[k] = v
    wall = 0.0
    for part in t.get("Elapsed (wall clock) time (h:mm:ss or m:ss)", "nan").split(":"):
        wall = wall * 60 + float(part)
    return {"cpu_s": float(t["User time (seconds)"]) + float(t["System time (seconds)"]),
            "rss_mb": int(t["Maximum resident set size (kbytes)"]) / 1024, "wall_s": wall}


def start_sim(sim_dir, cdir, out, rng_run=None):
    """The simulator on the case's config, inputs from the case folder and
    outputs rewritten into out/; rng_run: ns-3's RngRun (its marking draws)."""
    os.makedirs(out, exist_ok=True)
    lines = []
    for line in open(os.path.join(cdir, "config.txt")):
        w = line.split()
        if SIM_TRACE and w and w[0] in ("TRACE_FILE", "ENABLE_TRACE"):
            continue   # written below
        if w and w[0] in ("TOPOLOGY_FILE", "FLOW_FILE", "TRACE_FILE"):
            p = os.path.join(cdir, w[1])
            line = f"{w[0]} {p}\n" if os.path.exists(p) or w[0] != "TRACE_FILE" else line
        elif w and w[0] in OUTPUT_KEYS:
            line = f"{w[0]} {os.path.join(out, OUTPUT_KEYS[w[0]])}\n"
        lines.append(line)
    if QLEN_MON:
        lines = qlen.config_lines(lines, mon_start(cdir))
    if SIM_TRACE:   # every packet event at these nodes, into out/out_mix.tr
        lines += ["ENABLE_TRACE 1\n", "TRACE_FILE trace.txt\n"]
        with open(os.path.join(out, "trace.txt"), "w") as f:
            f.write(f"{len(SIM_TRACE)}\n{' '.join(str(n) for n in SIM_TRACE)}\n")
    with open(os.path.join(out, "config.txt"), "w") as f:
        f.writelines(lines)
    if not os.path.exists(os.path.join(out, "trace.txt")):
        with open(os.path.join(out, "trace.txt"), "w") as f:   # TRACE_FILE: trace no node
            f.write("0\n")
    build = os.path.join(sim_dir, "hpcc", "simulation", "build")
    env = dict(os.environ, LD_LIBRARY_PATH=build)
    if rng_run is not None:
        env["NS_GLOBAL_VALUE"] = f"RngRun={rng_run}"
    return timed([os.path.join(build, "scratch", "third"), "config.txt"], out,
                 os.path.join(out, "sim.log"), env)


def mon_start(cdir):
    """The case's QLEN_MON_START: a multiple of 100 ms (the simulator dumps
    its counts only then)."""
    start = int(float(read_config(os.path.join(cdir, "config.txt"))["QLEN_MON_START"][0]))
    if start % qlen.MON_SPAN_NS:
        sys.exit(f"vs_hpcc_simulator: QLEN_MON=1: {cdir}/config.txt: QLEN_MON_START: expected a "
                 f"multiple of 100 ms (got {start} ns)")
    return start


def hpcc_import(cdir, config, conv, what="vs_hpcc_simulator"):
    """The case's topology and flow files (those config.txt names) and the
    config file `config` through tools/hpcc_import.py into the folder conv;
    its output in conv/../hpcc_import.log."""
    cfg = read_config(os.path.join(cdir, "config.txt"))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "hpcc_import.py"),
                        "--topology", os.path.join(cdir, cfg["TOPOLOGY_FILE"][0]),
                        "--flows", os.path.join(cdir, cfg["FLOW_FILE"][0]),
                        "--config", config, "--out", conv],
                       capture_output=True, text=True)
    with open(os.path.join(os.path.dirname(conv), "hpcc_import.log"), "w") as f:
        f.write(r.stdout + r.stderr)
    if r.returncode != 0:
        sys.exit(f"{what}: hpcc_import failed:\n{r.stdout}{r.stderr}")


def start_emu(fabric_bin, cdir, out):
    config = os.path.join(cdir, "config.txt")
    if QLEN_MON:   # the converter sees the monitor the simulator runs with
        config = os.path.join(out, "config-qlen.txt")
        with open(config, "w") as f:
            f.writelines(qlen.config_lines(open(os.path.join(cdir, "config.txt")).readlines(),
                                           mon_start(cdir)))
    conv = os.path.join(out, "fabric")
    hpcc_import(cdir, config, conv)
    if EMU_QUANTUM:  # after the clock, so that SEEDS still finds ", seed: 1 }"
        path = os.path.join(conv, "fabric.yaml")
        text = open(path).read()
        if "fabric: { clock: virtual," not in text:
            sys.exit(f"vs_hpcc_simulator: EMU_QUANTUM: no fabric line to add it to in {path}")
        with open(path, "w") as f:
            f.write(text.replace("fabric: { clock: virtual,",
                                 f"fabric: {{ clock: virtual, quantum: {EMU_QUANTUM},", 1))
    emu = os.path.join(out, "emu")
    shutil.rmtree(emu, ignore_errors=True)
    return timed([fabric_bin, "--fabric", os.path.join(conv, "fabric.yaml"), "--out", emu,
                  "--threads", str(EMU_THREADS)], out, os.path.join(out, "emu.log"))


def sim_flows(path):
    flows = []
    for line in open(path):
        w = line.split()
        if len(w) >= 8:
            flows.append({"key": (ip_to_node(w[0]), ip_to_node(w[1]), int(w[4]), int(w[5])),
                          "fct": int(w[6]), "alone": int(w[7])})
    return flows


def sim_pfc_lines(path):
    """out_pfc.txt as (time, node, ifindex, 1 pause / 0 resume) tuples."""
    out = []
    for line in open(path):
        w = line.split()
        if len(w) >= 5:
            out.append((int(w[0]), int(w[1]), int(w[3]), int(w[4] == "1")))
    return out


def sim_pause_spans(lines):
    """Each device's paused spans, (node, ifindex, start, end): from its first
    pause to the resume after it; one still open at the file's last line
    ends there."""
    spans, since, end = [], {}, 0
    for t, node, ifindex, pause in lines:
        end = max(end, t)
        dev = (node, ifindex)
        if pause:
            since.setdefault(dev, t)
        elif dev in since:
            spans.append(dev + (since.pop(dev), t))
    return spans + [dev + (t, end) for dev, t in since.items()]


def sim_pauses(path):
    lines = sim_pfc_lines(path)
    pause = sum(p for *_, p in lines)
    resume = len(lines) - pause
    paused_ns = sum(e - s for _, _, s, e in sim_pause_spans(lines))
    # Its MMU drops a packet that finds the group's headroom full
    # (switch-mmu.cc, CheckIngressAdmission) and says so on stdout, one
    # "Drop: queue:<port>,<q>: Headroom full" line each: lossless or not.
    log = os.path.join(os.path.dirname(path), "sim.log")
    drops = None
    if os.path.exists(log):
        with open(log, errors="replace") as f:
            drops = sum(1 for line in f if "Headroom full" in line)
    return {"pause": pause, "resume": resume, "paused_ms": paused_ns / 1e6, "drops": drops}


def _tiers(topo):
    """Each node's tier in a Clos: host, tor (a switch with a host), agg (a
    switch next to a tor), core (the other switches)."""
    nb = {}
    for a, b, _, _ in topo["links"]:
        nb.setdefault(a, set()).add(b)
        nb.setdefault(b, set()).add(a)
    sw = topo["switches"]
    tier = {n: "host" for n in nb if n not in sw}
    tier.update({n: "tor" for n in nb if n in sw and any(x not in sw for x in nb[n])})
    for n in nb:
        if n not in tier:
            tier[n] = "agg" if any(tier.get(x) == "tor" for x in nb[n]) else "core"
    return tier


def topology_names(cdir):
    """The case's nodes by the emulator's names (S<n>, H<n>), each node's
    neighbours in the topology file's order (a node's interface i is its
    i-th link, from 1), and each name's tier (host, tor, agg, core)."""
    cfg = read_config(os.path.join(cdir, "config.txt"))
    topo = read_topology(os.path.join(cdir, cfg["TOPOLOGY_FILE"][0]))
    name = {n: ("S" if n in topo["switches"] else "H") + str(n) for n in range(topo["nodes"])}
    kind_of = {name[n]: t for n, t in _tiers(topo).items()}
    ends = {}
    for a, b, _, _ in topo["links"]:
        ends.setdefault(a, []).append(b)
        ends.setdefault(b, []).append(a)
    return name, ends, kind_of


def queues_by_kind(cdir, sim_qlen, emu_qlen):
    """Each side's egress queue integral (KB x ms over the monitor's span)
    by kind of port (switch->peer: agg->tor is an aggregation switch's
    port towards a ToR): where the bytes waited."""
    name, ends, kind_of = topology_names(cdir)
    kinds = {}
    for (node, ifindex), v in qlen.sim_port_integrals(sim_qlen).items():
        sw, peer = name[node], name[ends[node][ifindex - 1]]
        kinds.setdefault(f"{kind_of[sw]}->{kind_of[peer]}", [0.0, 0.0])[0] += v
    for (sw, peer), v in qlen.emu_port_integrals(emu_qlen).items():
        if sw in kind_of and peer in kind_of:
            kinds.setdefault(f"{kind_of[sw]}->{kind_of[peer]}", [0.0, 0.0])[1] += v
    return kinds


def paused_links(cdir, sim_out, emu_results):
    """The links each side paused, as (sender of the pause, paused node)
    names: the simulator's out_pfc.txt names the receiving device by node
    and interface index (a node's interfaces are its links in the topology
    file's order, from 1), the emulator's switch ports by their peer. And
    each side's pauses by kind of link ("tor->host": a ToR pausing a host)."""
    name, ends, kind_of = topology_names(cdir)
    # by kind: [pauses simulator, pauses emulator, paused ms simulator, paused ms emulator]
    sim, kinds = set(), {}

    def kind(pauser, paused):
        return kinds.setdefault(f"{kind_of[pauser]}->{kind_of[paused]}", [0, 0, 0.0, 0.0])

    def link(node, ifindex):  # (the pause's sender, the paused node)
        return name[ends[node][ifindex - 1]], name[node]
    lines = sim_pfc_lines(os.path.join(sim_out, "out_pfc.txt"))
    for _, node, ifindex, pause in lines:
        if pause:
            sim.add(link(node, ifindex))
            kind(*link(node, ifindex))[0] += 1
    for node, ifindex, start, end in sim_pause_spans(lines):
        kind(*link(node, ifindex))[2] += (end - start) / 1e6
    res = json.load(open(emu_results))
    emu = set()
    for sw, v in res["switches"].items():
        for port in v["ports"]:
            peer = port["name"]
            if sw not in kind_of or peer not in kind_of:
                continue
            x = sum(q["pfc_xoff_tx"] for q in port["prio"])
            if x:
                emu.add((sw, peer))
                kind(sw, peer)[1] += x
            # The port's egress, paused by its peer.
            kind(peer, sw)[3] += sum(q["paused_ns"] for q in port["prio"]) / 1e6
    for h, v in res.get("hosts", {}).items():
        # A host's one link is to its ToR, which pauses it.
        if h in kind_of and v.get("paused_ns"):
            kind(name[ends[int(h[1:])][0]], h)[3] += v["paused_ns"] / 1e6
    return {"sim": len(sim), "emu": len(emu), "both": len(sim & emu), "by_kind": kinds}


def emu_flows(path):
    flows = []
    with open(path) as f:
        for r in csv.DictReader(f):
            flows.append({"key": (int(r["from"][1:]), int(r["to"][1:]), int(r["bytes"]),
                                  int(r["start_ns"])),
                          "fct": int(r["fct_ns"]) if r["completed"] == "1" else None})
    return flows


def emu_pauses(path):
    res = json.load(open(path))
    pause = resume = refresh = 0
    paused_ns = 0
    for sw in res["switches"].values():
        for port in sw["ports"]:
            for q in port["prio"]:
                pause += q["pfc_xoff_tx"]
                refresh += q["pfc_refresh_tx"]
                resume += q["pfc_xon_tx"]
                paused_ns += q["paused_ns"]
    host_pfc = sum(h.get("pfc_tx", 0) for h in res["hosts"].values())
    # The hosts' paused time (results.json from 2026-11-30 on): the
    # simulator's count includes its NICs.
    host_paused = sum(h.get("paused_ns", 0) for h in res["hosts"].values())
    return {"pause": pause + host_pfc, "refresh": refresh, "resume": resume,
            "paused_ms": (paused_ns + host_paused) / 1e6, "host_paused_ms": host_paused / 1e6,
            "host_pfc_tx": host_pfc,
            "lossless_drops": res.get("lossless_drops", 0)}


def match_keyed(sim, emu):
    """{flow key: [(size, sim fct, emu fct, sim standalone)]} of matched flows."""
    by_key = {}
    for f in emu:
        by_key.setdefault(f["key"], []).append(f)
    out = {}
    for sf in sim:
        cand = by_key.get(sf["key"])
        if not cand:   # as match(): the simulator's start through a double, 2 ns either way
            src, dst, size, start = sf["key"]
            cand = next((by_key[k] for d in (-1, 1, -2, 2)
                         if by_key.get(k := (src, dst, size, start + d))), None)
        if cand:
            out.setdefault(sf["key"], []).append((sf["key"][2], sf["fct"], cand.pop(0)["fct"], sf["alone"]))
    return out


def seed_means(runs):
    """Per flow, the mean FCT of each side over the runs (flows every run
    matched and the emulator completed): (size, sim mean, emu mean, alone)."""
    keys = set.intersection(*(set(r) for r in runs))
    pairs = []
    for k in sorted(keys):
        for i in range(min(len(r[k]) for r in runs)):
            xs = [r[k][i] for r in runs]
            if any(x[2] is None for x in xs):
                continue
            pairs.append((xs[0][0], sum(x[1] for x in xs) / len(xs), sum(x[2] for x in xs) / len(xs),
                          xs[0][3]))
    return pairs


def run_seeds(fabric_bin, sim_dir, cdir, cout, n, analyse_only, sim_kept):
    """Runs 2..n of both sides (run 1 is the case's main run): the simulator
    with RngRun r, the emulator with fabric.seed r, in cout/seeds/r<r>."""
    runs = []
    for r in range(2, n + 1):
        d = os.path.join(cout, "seeds", f"r{r}")
        sim_out, emu_out = os.path.join(d, "sim"), os.path.join(d, "emu")
        if not analyse_only:
            os.makedirs(d, exist_ok=True)
            sim_p = None
            if not (sim_kept and os.path.exists(os.path.join(sim_out, "out_fct.txt"))):
                sim_p = start_sim(sim_dir, cdir, sim_out, r)
            conv = os.path.join(cout, "fabric")
            text = open(os.path.join(conv, "fabric.yaml")).read()
            if ", seed: 1 }" not in text:
                sys.exit(f"vs_hpcc_simulator: SEEDS: no ', seed: 1 }}' to change in {conv}/fabric.yaml")
            fab = os.path.join(conv, f"fabric-seed{r}.yaml")
            with open(fab, "w") as f:
                f.write(text.replace(", seed: 1 }", f", seed: {r} }}", 1))
            shutil.rmtree(emu_out, ignore_errors=True)
            emu_p = timed([fabric_bin, "--fabric", fab, "--out", emu_out], d, os.path.join(d, "emu.log"))
            if emu_p.wait() != 0 or (sim_p is not None and sim_p.wait() != 0):
                sys.exit(f"vs_hpcc_simulator: seed {r} failed (see {d})")
        runs.append(match_keyed(sim_flows(os.path.join(sim_out, "out_fct.txt")),
                                emu_flows(os.path.join(emu_out, "fct.csv"))))
    return runs


def match(sim, emu):
    by_key = {}
    for f in emu:
        by_key.setdefault(f["key"], []).append(f)
    pairs, unmatched = [], 0
    for s in sim:
        cand = by_key.get(s["key"])
        if not cand:   # the simulator's start went through a double: allow 2 ns either way
            src, dst, size, start = s["key"]
            cand = next((by_key[k] for d in (-1, 1, -2, 2)
                         if by_key.get(k := (src, dst, size, start + d))), None)
        if not cand:
            unmatched += 1
            continue
        e = cand.pop(0)
        pairs.append((s["key"][2], s["fct"], e["fct"], s["alone"]))
    return pairs, unmatched


def fmt(x, nd=1):
    return "-" if x is None else f"{x:,.{nd}f}"


def analyse(case, pairs, sim_p, emu_p, sim_t, emu_t, label, lines):
    done = [p for p in pairs if p[2] is not None]
    summary = {"case": case, "sim_source": label, "matched": len(pairs), "emu_incomplete":
               len(pairs) - len(done), "sim_pfc": sim_p, "emu_pfc": emu_p, "sim_time": sim_t,
               "emu_time": emu_t, "buckets": []}
    lines.append(f"{'size':>10} {'flows':>6} {'FCT p50 sim/emu (us)':>22} {'p95':>20} "
                 f"{'p99':>22} {'slowdown p50':>14} {'slowdown p99':>14} {'ratio emu/sim p5/p50/p95':>26}")
    for lo, hi, name, key in BUCKETS:
        b = [p for p in done if lo <= p[0] < hi]
        s_fct = [p[1] / 1e3 for p in b]
        e_fct = [p[2] / 1e3 for p in b]
        s_sd = [p[1] / p[3] for p in b]
        e_sd = [p[2] / p[3] for p in b]
        ratio = [p[2] / p[1] for p in b]
        row = {"bucket": name, "key": key, "flows": len(b)}
        for q in (50, 95, 99):
            row[f"sim_fct_p{q}_us"], row[f"emu_fct_p{q}_us"] = pct(s_fct, q), pct(e_fct, q)
            row[f"sim_sd_p{q}"], row[f"emu_sd_p{q}"] = pct(s_sd, q), pct(e_sd, q)
        for q in (5, 50, 95):
            row[f"ratio_p{q}"] = pct(ratio, q)
        summary["buckets"].append(row)

        def two(k, nd=1):
            return f"{fmt(row['sim_' + k], nd)} / {fmt(row['emu_' + k], nd)}"
        lines.append(f"{name:>10} {len(b):>6} {two('fct_p50_us'):>22} {two('fct_p95_us'):>20} "
                     f"{two('fct_p99_us'):>22} {two('sd_p50', 2):>14} {two('sd_p99', 2):>14} "
                     f"{' / '.join(fmt(row[f'ratio_p{q}'], 2) for q in (5, 50, 95)):>26}")
    ratio = [p[2] / p[1] for p in done]
    summary["ratio"] = {f"p{q}": pct(ratio, q) for q in (5, 50, 95)}
    summary["within_10pct"] = sum(1 for r in ratio if 0.9 <= r <= 1.1)
    lines.append(f"{'all':>10} {len(done):>6}  per-flow FCT ratio emu/sim p5 / p50 / p95: "
                 + " / ".join(fmt(summary["ratio"][f"p{q}"], 2) for q in (5, 50, 95))
                 + f"; {summary['within_10pct']} of {len(done)} flows within 10%")
    lines.append(f"  pause frames: simulator {sim_p['pause']} pause + {sim_p['resume']} resume "
                 f"received, paused {sim_p['paused_ms']:.3f} ms, headroom-full drops "
                 f"{'-' if sim_p.get('drops') is None else sim_p['drops']}; emulator {emu_p['pause']} "
                 f"XOFF + {emu_p['resume']} XON sent (hosts {emu_p['host_pfc_tx']}; and "
                 f"{emu_p.get('refresh', 0)} refreshes, which the simulator's pause, never "
                 f"expiring, has no need of), "
                 f"switch egresses and hosts paused {emu_p['paused_ms']:.3f} ms "
                 f"(hosts {emu_p['host_paused_ms']:.3f}), lossless drops {emu_p['lossless_drops']}")
    lines.append(f"  CPU / wall / peak RSS: simulator {sim_t['cpu_s']:.2f} s / {sim_t['wall_s']:.2f} s / "
                 f"{sim_t['rss_mb']:.0f} MB ({label}); emulator {emu_t['cpu_s']:.2f} s / "
                 f"{emu_t['wall_s']:.2f} s / {emu_t['rss_mb']:.0f} MB"
                 f"{f' ({EMU_THREADS} threads)' if EMU_THREADS > 1 else ''}"
                 f"{f' (fabric.quantum {EMU_QUANTUM})' if EMU_QUANTUM else ''}")
    return summary


def cdf(ax, values, **kw):
    v = sorted(values)
    if v:
        ax.step(v, [(i + 1) / len(v) for i in range(len(v))], where="post", **kw)


def cdf_axes(ax, xlabel, title):
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("CDF of flows")
    ax.set_ylim(0, 1.02)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FormatStrFormatter, FuncFormatter, ScalarFormatter
    n = len(results)
    fig, axes = plt.subplots(n, 3, figsize=(16, 4.6 * n), squeeze=False)
    for row, (summary, pairs) in zip(axes, results):
        done = [p for p in pairs if p[2] is not None]
        ax = row[0]
        names = [b["bucket"] for b in summary["buckets"]]
        x = range(len(names))
        for side, col in (("sim", "tab:blue"), ("emu", "tab:red")):
            lab = "simulator" if side == "sim" else "pfcfabric"
            for q, ls in ((50, "--"), (99, "-")):
                ys = [b[f"{side}_sd_p{q}"] for b in summary["buckets"]]
                ax.plot(x, [y if y is not None else float("nan") for y in ys], ls, marker="o",
                        color=col, label=f"{lab} p{q}")
        ax.set_xticks(list(x))
        ax.set_xticklabels([f"{nm}\n({b['flows']})" for nm, b in zip(names, summary["buckets"])])
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(ScalarFormatter())
        ax.yaxis.set_minor_formatter(FormatStrFormatter("%.4g"))
        ax.set_ylabel("slowdown (FCT / simulator's standalone FCT)")
        ax.set_title(f"{summary['case']}: slowdown by flow size")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        ax = row[1]
        for idx, col, lab in ((1, "tab:blue", "simulator"), (2, "tab:red", "pfcfabric")):
            cdf(ax, [p[idx] / 1e3 for p in done], color=col, label=lab)
        cdf_axes(ax, "FCT (us)", f"{summary['case']}: FCT CDF ({len(done)} matched flows)")
        ax = row[2]
        for lo, hi, name, _ in BUCKETS:
            cdf(ax, [p[2] / p[1] for p in done if lo <= p[0] < hi], label=name)
        ax.axvline(1.0, color="k", lw=0.8)
        ax.axvspan(0.9, 1.1, color="green", alpha=0.1, label="target [0.9, 1.1]")
        cdf_axes(ax, "per-flow FCT ratio pfcfabric / simulator",
                 f"{summary['case']}: per-flow ratio by size")
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(FuncFormatter(   # 0.2, 0.5, 2, 5 only: no crowding near 1
            lambda v, _: f"{v:g}" if f"{v:.1e}"[0] in "25" else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    fabric_bin, sim_dir, ref, out = (os.path.abspath(a) for a in sys.argv[1:5])
    cases = sys.argv[5:]
    from_ref = os.environ.get("SIM_FROM_REFERENCE", "0") == "1"
    analyse_only = os.environ.get("ANALYSE_ONLY", "0") == "1"
    sim_kept = os.environ.get("SIM_KEEP", "0") == "1"
    os.makedirs(out, exist_ok=True)
    results, summaries, lines_all, result = [], [], [], []
    for case in cases:
        cdir = case_dir(ref, case)
        name = os.path.basename(cdir.rstrip("/"))
        cout = os.path.join(out, name)
        os.makedirs(cout, exist_ok=True)
        if from_ref:
            label = "simulator outputs and time.log kept in the reference folder, NOT rerun"
            sim_out = cdir
        else:
            label = "simulator run now"
            sim_out = os.path.join(cout, "sim")
        sim_tf = os.path.join(sim_out, "sim.log.time")
        emu_tf = os.path.join(cout, "emu.log.time")
        if analyse_only:   # the outputs of an earlier run in OUT_DIR, read again
            label += ", analysed again"
        else:
            # SIM_KEEP=1: the simulator's run already in OUT_DIR is kept (its
            # inputs did not change; only the emulator's side is run again).
            kept = sim_kept and os.path.exists(os.path.join(sim_out, "out_fct.txt"))
            if kept:
                label += " (its outputs kept from an earlier run in OUT_DIR)"
            sim_proc = None if from_ref or kept else start_sim(sim_dir, cdir, sim_out)
            if SIDES == "turns" and sim_proc is not None and sim_proc.wait() != 0:
                sys.exit(f"vs_hpcc_simulator: the simulator failed (see {sim_out}/sim.log)")
            emu_proc = start_emu(fabric_bin, cdir, cout)   # together: both at once, 2 cores
            if emu_proc.wait() != 0:
                sys.exit(f"vs_hpcc_simulator: pfcfabric failed (see {cout}/emu.log)")
            if sim_proc is not None and sim_proc.wait() != 0:
                sys.exit(f"vs_hpcc_simulator: the simulator failed (see {sim_out}/sim.log)")
            if sim_proc is not None:
                label += "; the two sides in turns, each alone" if SIDES == "turns" else \
                    "; the two sides at once, one a core"
        sim_t = reference_time(os.path.join(cdir, "time.log")) if from_ref else read_time(sim_tf)
        emu_t = read_time(emu_tf)
        sim = sim_flows(os.path.join(sim_out, "out_fct.txt"))
        emu = emu_flows(os.path.join(cout, "emu", "fct.csv"))
        pairs, unmatched = match(sim, emu)
        lines = [f"== {name}: {len(sim)} simulator flows, {len(emu)} emulator flows, "
                 f"{len(pairs)} matched, {unmatched} unmatched; simulator: {label}"]
        s = analyse(name, pairs, sim_pauses(os.path.join(sim_out, "out_pfc.txt")),
                    emu_pauses(os.path.join(cout, "emu", "results.json")), sim_t, emu_t, label, lines)
        s["unmatched"] = unmatched
        s["sides"] = SIDES
        s["paused_links"] = paused_links(cdir, sim_out, os.path.join(cout, "emu", "results.json"))
        pl = s["paused_links"]
        lines.insert(-1, f"  paused links: simulator {pl['sim']}, emulator {pl['emu']}, "
                         f"both {pl['both']}")
        counts = [f"{k} {v[0]}/{v[1]}" for k, v in sorted(pl["by_kind"].items()) if v[0] or v[1]]
        times = [f"{k} {v[2]:.1f}/{v[3]:.1f}" for k, v in sorted(pl["by_kind"].items()) if v[2] or v[3]]
        if counts:
            lines.insert(-1, "  pauses by link (pauser->paused), simulator/emulator: " + ", ".join(counts))
        if times:
            lines.insert(-1, "  paused time by link (pauser->paused), simulator/emulator ms: " + ", ".join(times))
        if QLEN_MON:
            # Over the traffic's part of the 100 ms: to when the last flow
            # of either side was done, rounded up to 100 us.
            start = mon_start(cdir)
            last = max([f["key"][3] + f["fct"] for f in sim + emu if f["fct"] is not None] or [start])
            wend = -(-last // 100_000) * 100_000
            s["qlen"] = {side: qlen.window_stats(*h, start, wend) for side, h in
                         (("sim", qlen.sim_hist(os.path.join(sim_out, "out_qlen.txt"))),
                          ("emu", qlen.emu_hist(os.path.join(cout, "emu", "qlen.csv"))))}
            for side in ("sim", "emu"):
                q = s["qlen"][side]
                lines.append(f"  queue length ({side}), {q['ports']} switch ports over "
                             f"{q['window_ns'] / 1e6:.1f} ms: p50 {q['p50_kb']} KB, p95 {q['p95_kb']} KB, "
                             f"p99 {q['p99_kb']} KB, p99.9 {q['p999_kb']} KB, mean {q['mean_kb']:.2f} KB"
                             if q else f"  queue length ({side}): none (no dump at the monitor's end, or a "
                             f"queue not empty after the flows)")
            s["queues_by_kind"] = queues_by_kind(cdir, os.path.join(sim_out, "out_qlen.txt"),
                                                 os.path.join(cout, "emu", "qlen.csv"))
            lines.append("  egress queues by port (switch->peer), simulator/emulator KB x ms: " + ", ".join(
                f"{k} {v[0]:.0f}/{v[1]:.0f}" for k, v in sorted(s["queues_by_kind"].items())))
        nseeds = int(os.environ.get("SEEDS", "1"))
        if nseeds > 1 and not from_ref:
            # One run of each is one draw of their marking: the FCTs of a
            # few flows sharing a queue move by 10-20% from draw to draw on
            # either side. Per flow, the mean over SEEDS runs of each.
            runs = [match_keyed(sim, emu)] + run_seeds(fabric_bin, sim_dir, cdir, cout, nseeds,
                                                        analyse_only, sim_kept)
            mlines = [f"-- {name}: per-flow mean FCT over {nseeds} runs of each side "
                      f"(simulator RngRun 1..{nseeds}, emulator fabric.seed 1..{nseeds})"]
            ms = analyse(name, seed_means(runs), s["sim_pfc"], s["emu_pfc"], sim_t, emu_t,
                         label, mlines)
            lines += mlines[:7]
            s["seed_means"] = {"seeds": nseeds, "buckets": ms["buckets"], "ratio": ms["ratio"],
                               "within_10pct": ms["within_10pct"]}
        print("\n".join(lines), flush=True)
        lines_all += lines
        results.append((s, pairs))
        summaries.append(s)
        tag = name.replace("-", "_")
        for b in s["buckets"]:
            if b["flows"]:
                result.append(f"{tag}_p50_ratio_{b['key']}="
                              f"{b['emu_fct_p50_us'] / b['sim_fct_p50_us']:.3f}")
        result += [f"{tag}_ratio_p{q}={s['ratio'][f'p{q}']:.3f}" for q in (5, 50, 95)]
        if "seed_means" in s:
            m = s["seed_means"]
            result += [f"{tag}_seeds={m['seeds']}"]
            result += [f"{tag}_mean_p50_ratio_{b['key']}={b['emu_fct_p50_us'] / b['sim_fct_p50_us']:.3f}"
                       for b in m["buckets"] if b["flows"]]
            result += [f"{tag}_mean_ratio_p{q}={m['ratio'][f'p{q}']:.3f}" for q in (5, 50, 95)]
        result += [f"{tag}_within_10pct={s['within_10pct']}", f"{tag}_matched={len(pairs)}", f"{tag}_cpu_s_sim={sim_t['cpu_s']:.2f}",
                   f"{tag}_cpu_s_emu={emu_t['cpu_s']:.2f}",
                   f"{tag}_wall_s_sim={sim_t['wall_s']:.2f}", f"{tag}_wall_s_emu={emu_t['wall_s']:.2f}",
                   f"{tag}_pause_sim={s['sim_pfc']['pause']}", f"{tag}_pause_emu={s['emu_pfc']['pause']}",
                   f"{tag}_refresh_emu={s['emu_pfc'].get('refresh', 0)}",
                   f"{tag}_paused_links_sim={s['paused_links']['sim']}",
                   f"{tag}_paused_links_emu={s['paused_links']['emu']}",
                   f"{tag}_paused_links_both={s['paused_links']['both']}",
                   f"{tag}_drops_sim={'-' if s['sim_pfc'].get('drops') is None else s['sim_pfc']['drops']}",
                   f"{tag}_drops_emu={s['emu_pfc']['lossless_drops']}"]
        for k, v in sorted(s["paused_links"]["by_kind"].items()):
            if v[2] or v[3]:
                kk = k.replace("->", "_")
                result += [f"{tag}_paused_ms_{kk}_sim={v[2]:.1f}", f"{tag}_paused_ms_{kk}_emu={v[3]:.1f}"]
        for side, q in s.get("qlen", {}).items():
            if q:
                result += [f"{tag}_qlen_p99_kb_{side}={q['p99_kb']}", f"{tag}_qlen_p95_kb_{side}={q['p95_kb']}"]
    if from_ref:
        result.append("sim_from_reference=1")
    png = os.path.join(out, "vs_hpcc_simulator.png")
    plot(results, png)
    write_outputs(out, png, "summary.json", summaries, lines_all, result)


def write_outputs(out, png, json_name, data, lines, result):
    """A bench's last steps (its figure already drawn): OUT_DIR/json_name,
    OUT_DIR/table.txt, where they are, and the RESULT line."""
    with open(os.path.join(out, json_name), "w") as f:
        json.dump(data, f, indent=1)
    with open(os.path.join(out, "table.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"figure {png}; tables {out}/table.txt, summary {out}/{json_name}")
    print("RESULT " + " ".join(result))


if __name__ == "__main__":
    main()
