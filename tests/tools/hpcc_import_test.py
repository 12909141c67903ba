#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/hpcc_import.py (suite 'fabric'): a small experiment in the RDMA
simulator's own formats (topology.txt, flow.txt, config.txt with DCQCN
and ECN keys) converted and run on pfcfabric: every flow delivers all its
bytes, DCQCN and the ECN profile carried over, no lossless drop; then
malformed files, each refused with its file, line and what was expected.

  hpcc_import_test.py BUILD_DIR SOURCE_DIR
"""
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

from pfclib import hpcc_files as H  # noqa: E402
from pfclib.checks import check, finish  # noqa: E402

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
tool = os.path.join(src, "tools/hpcc_import.py")

# Node 0 a switch with four hosts at 25 Gb/s; three flows into host 4.
TOPO = """5 1 4
0
0 1 25Gbps 0.001ms 0
0 2 25Gbps 0.001ms 0
0 3 25Gbps 0.001ms 0
0 4 25Gbps 0.001ms 0

First line: total node #, switch node #, link #
"""
FLOWS = """3
1 4 3 100 3000000 0.001
2 4 3 100 3000000 0.001
3 4 3 100 500000 0.0015
"""
CONFIG = """ENABLE_QCN 1
PACKET_PAYLOAD_SIZE 1000
TOPOLOGY_FILE mix/topology.txt
SIMULATOR_STOP_TIME 0.006
CC_MODE 1
ALPHA_RESUME_INTERVAL 1
RATE_DECREASE_INTERVAL 4
RP_TIMER 55
EWMA_GAIN 0.00390625
FAST_RECOVERY_TIMES 1
RATE_AI 50Mb/s
RATE_HAI 100Mb/s
MIN_RATE 100Mb/s
KMAX_MAP 2 25000000000 400 100000000000 1600
KMIN_MAP 2 25000000000 100 100000000000 400
PMAX_MAP 2 25000000000 0.2 100000000000 0.2
BUFFER_SIZE 32.0
CLAMP_TARGET_RATE 0
PINT_LOG_BASE 1.01
PINT_PROB 1.0
ACK_HIGH_PRIO 1
"""


def runs_acked(d, mode, what):
    """pfcfabric runs the last conversion: its three flows complete under
    `mode`, each sender updating on ACKs that all carried their echo."""
    out = os.path.join(d, f"out-{mode}")
    r = subprocess.run([fabric, "--fabric", os.path.join(d, "conv", "fabric.yaml"), "--out", out],
                       capture_output=True, text=True)
    res = json.load(open(os.path.join(out, "results.json"))) if r.returncode == 0 else {"flows": []}
    check(what, r.returncode == 0 and len(res["flows"]) == 3
          and all(f["rc"]["completed"] and f["cc"]["mode"] == mode and f["cc"]["updates"] > 0
                  and f["cc"]["acks_without_echo"] == 0 for f in res["flows"]),
          r.stderr + json.dumps([f.get("cc") for f in res["flows"]]))


def write(d, name, text):
    p = os.path.join(d, name)
    with open(p, "w") as f:
        f.write(text)
    return p


def convert(d, topo=TOPO, flows=FLOWS, config=CONFIG, extra=()):
    args = [sys.executable, tool, "--topology", write(d, "topology.txt", topo), "--flows",
            write(d, "flow.txt", flows), "--out", os.path.join(d, "conv")]
    if config is not None:
        args += ["--config", write(d, "config.txt", config)]
    return subprocess.run(args + list(extra), capture_output=True, text=True)


with tempfile.TemporaryDirectory(prefix="hpcc-import-") as d:
    p = convert(d)
    check("converts the simulator's files", p.returncode == 0, p.stdout + p.stderr)
    fab = open(os.path.join(d, "conv", "fabric.yaml")).read()
    sw = open(os.path.join(d, "conv", "switch.yaml")).read()
    # The simulator's DCQCN packet is 48 bytes around its payload, the RoCEv2
    # frame 58: a 1,000-byte payload takes the wire time of 1,048 bytes.
    check("links carry a packet's bytes alone, as the simulator's, less the frame's 10 more",
          "wire_overhead: -10," in fab, fab)
    check("wire times as the simulator's Time makes them", "wire_time: ns3" in fab, fab)
    check("DCQCN's keys carried over", "dcqcn: { rate_ai: 50M" in fab and "rp_timer: 55us" in fab, fab)
    # What run.py writes, unchanged: PINT's keys (for every mode), integers
    # as Python 3 prints them (32.0), booleans the fabric file reads back.
    check("CLAMP_TARGET_RATE 0 written as YAML's false", "clamp_target_rate: false" in fab, fab)
    check("BUFFER_SIZE 32.0 is 32 MB", "total_bytes: 32M" in sw, sw)
    check("the simulator's dynamic PFC threshold: 4 KB reserved, alpha 1/8, XON 3 KB below",
          "lossless: { reserved: 4K, xoff: dynamic, alpha: 0.125, headroom: auto, xon_hysteresis: 3K }"
          in sw, sw)
    check("KMIN/KMAX/PMAX at 25G become the WRED profile",
          "green_min_threshold: 100000, green_max_threshold: 400000, green_drop_probability: 20," in sw, sw)
    check("the simulator's profile marks at dequeue, as the simulator does", "mark_at: dequeue" in sw, sw)
    check("a CNP for every marked packet, as the simulator flags every ACK", "cnp_interval: 1ns" in fab, fab)
    r = subprocess.run([fabric, "--fabric", os.path.join(d, "conv", "fabric.yaml"), "--out",
                        os.path.join(d, "out")], capture_output=True, text=True)
    check("pfcfabric runs the converted experiment", r.returncode == 0, r.stdout + r.stderr)
    res = json.load(open(os.path.join(d, "out", "results.json")))
    sizes = [3000000, 3000000, 500000]
    check("the flows are RC queue pairs with the simulator's payload and ACK interval",
          "rc: { mtu: 1000, ack_interval: 1, nak_interval: 500us, timeout: 0, ack_pausable: false, pace_catch_up: false }" in fab
          and fab.count("transport: rc") == 3, fab)
    for f, size in zip(res["flows"], sizes):
        packets = math.ceil(size / 1000)  # PACKET_PAYLOAD_SIZE 1000
        check(f"{f['name']} wrote all its {size} bytes ({packets} packets, each taken once, all ACKed)",
              f["rc"]["completed"] and f["responder"]["accepted"] == packets, json.dumps(f))
    check("no lossless drop", res["lossless_drops"] == 0, str(res["lossless_drops"]))
    # ACK_HIGH_PRIO 1 is the simulator's NIC's alone (third.cc never sets its
    # switches' AckHighPrio): the receiver's ACKs (one a packet) leave S0
    # towards the senders in the data's priority 3, none at the CNPs' 6;
    # the CNPs (every ACK of a marked packet, there) go in the flows' class.
    acks = {pt["name"]: (pt["prio"][6]["tx_packets"], pt["prio"][3]["tx_packets"])
            for pt in res["switches"]["S0"]["ports"] if pt["name"] in ("H1", "H2", "H3")}
    check("ACKs at the data's priority 3 towards the senders, as the simulator's switches queue them",
          all(lo >= size // 1000 and hi == 0 for (hi, lo), size in zip(acks.values(), sizes)),
          str(acks))
    check("CNPs in the flows' class, where the simulator's flagged ACKs go",
          "cnp_dscp: 3, cnp_prio: 3" in fab, fab)
    # ... and its NIC's ACK queue is then its queue 0, which a pause of the
    # data's class does not stop (ack_pausable: false above); with
    # ACK_HIGH_PRIO 0 (queue 3) the NIC holds them as its data.
    p0 = convert(d, config=CONFIG.replace("ACK_HIGH_PRIO 1", "ACK_HIGH_PRIO 0"))
    check("ACK_HIGH_PRIO 0: the NIC's ACKs wait out a pause of their class (no ack_pausable)",
          p0.returncode == 0 and "rc: { mtu: 1000, ack_interval: 1, nak_interval: 500us, timeout: 0, pace_catch_up: false }"
          in open(os.path.join(d, "conv", "fabric.yaml")).read(), p0.stderr)
    rows = list(csv.DictReader(open(os.path.join(d, "out", "fct.csv"))))
    print("fct.csv:", rows)
    check("fct.csv: every flow completed, no faster than its ideal",
          len(rows) == 3 and all(r["completed"] == "1" and float(r["slowdown"]) >= 0.999 for r in rows))
    check("fct.csv: the incast's flows slowed by sharing (slowdown > 1.5)",
          all(float(r["slowdown"]) > 1.5 for r in rows[:2]), str([r["slowdown"] for r in rows]))

    bad = [
        (dict(topo="5 1 4\n0\n0 1 25Gbps 0.001ms 0\n"), "topology.txt:4: expected 4 links (found 1)"),
        (dict(topo=TOPO.replace("0 3 25Gbps", "0 3 25Gbit")), "topology.txt:5: rate: expected a rate such as 100Gbps or 50Mb/s (got 25Gbit)"),
        (dict(topo=TOPO.replace("0 2 25Gbps 0.001ms 0", "0 2 25Gbps 0.001ms 0.01")),
         "topology.txt:4: error_rate 0.01: expected 0"),
        (dict(topo=TOPO.replace("0 4 25Gbps", "0 9 25Gbps")), "topology.txt:6: node 9: expected a node 0..4"),
        (dict(topo=TOPO.replace("0 4 25Gbps", "0 1 25Gbps")), "topology.txt:6: link 0-1: expected two different nodes, one link"),
        (dict(flows=FLOWS.replace("2 4 3 100", "2 0 3 100")), "flow.txt:3: node 0: expected a host"),
        (dict(flows=FLOWS.replace("3\n1 4", "4\n1 4")), "flow.txt:5: expected 4 flows (found 3)"),
        (dict(flows=FLOWS.replace("0.0015", "soon")), "flow.txt:4: start: expected seconds (got soon)"),
        (dict(flows=FLOWS.replace("0.0015", "0.5")), "flow.txt: flow 2: starts at 0.5 s, after the run's end"),
        (dict(config=CONFIG.replace("CC_MODE 1", "CC_MODE 2")),
         "config.txt:5: CC_MODE 2 (unknown): expected 1 (DCQCN), 3 (HPCC), 7 (TIMELY), 8 (DCTCP) or 10 (HPCC-PINT)"),
        (dict(config=CONFIG + "HAS_WIN 1\n"),
         "config.txt:22: HAS_WIN 1 with DCQCN (run.py's dcqcn_vwin): expected 0"),
        (dict(config=CONFIG + "FANCY_KEY 1\n"), "config.txt:22: FANCY_KEY: expected a key of the simulator's config"),
        (dict(config=CONFIG.replace("RATE_AI 50Mb/s", "RATE_AI fast")), "config.txt:11: rate: expected a rate such as 100Gbps or 50Mb/s (got fast)"),
        (dict(config=CONFIG.replace("BUFFER_SIZE 32.0", "BUFFER_SIZE 32.5")), "config.txt:17: BUFFER_SIZE: expected a whole number (got 32.5)"),
        (dict(config=CONFIG.replace("PACKET_PAYLOAD_SIZE 1000", "PACKET_PAYLOAD_SIZE 100")),
         "config.txt:2: PACKET_PAYLOAD_SIZE 100: expected 256..4096 (an RC MTU)"),
        (dict(topo=""), "topology.txt:1: expected '<nodes> <switches> <links>' (got an empty file)"),
        (dict(config=CONFIG + "ERROR_RATE_PER_LINK 0.001\n"),
         "config.txt:22: ERROR_RATE_PER_LINK: expected 0 (the emulated links lose no frame at random)"),
        (dict(config=CONFIG + "LINK_DOWN 100 0 9\n"),
         "config.txt:22: LINK_DOWN: expected a link of the topology (no link 0-9)"),
        (dict(topo=TOPO.replace("0 4 25Gbps", "0 4 40Gbps")),
         "config.txt:15: KMIN_MAP: expected a value for every link rate of the topology (no 40000000000 for its 40G links)"),
    ]
    for kw, want in bad:
        p = convert(d, **kw)
        check(f"refused: {want}", p.returncode == 2 and want in p.stderr, p.stderr.strip())
    p = convert(d, config=CONFIG.replace("PACKET_PAYLOAD_SIZE 1000", "PACKET_PAYLOAD_SIZE 4000")
                + "L2_ACK_INTERVAL 16000\nL2_BACK_TO_ZERO 1\n")
    fab = open(os.path.join(d, "conv", "fabric.yaml")).read()
    check("a 4,000-byte payload: jumbo switch ports; L2_ACK_INTERVAL in bytes becomes packets",
          p.returncode == 0 and "mtu: 9000" in fab and "rc: { mtu: 4000, ack_interval: 4, nak_interval: 500us, timeout: 0, ack_pausable: false, pace_catch_up: false }" in fab, fab[:600])
    check("L2_BACK_TO_ZERO 1 is named as not modelled", "L2_BACK_TO_ZERO 1" in p.stdout + p.stderr,
          p.stdout + p.stderr)
    p = convert(d, config=CONFIG + "ERROR_RATE_PER_LINK 0.0000\nLINK_DOWN 0 0 0\n")
    check("ERROR_RATE_PER_LINK 0 and LINK_DOWN 0 0 0 (none) are taken, not left aside",
          p.returncode == 0 and "LINK_DOWN" not in p.stdout and "events:" not in
          open(os.path.join(d, "conv", "fabric.yaml")).read(), p.stdout + p.stderr)
    p = convert(d, config=CONFIG + "LINK_DOWN 1500 0 2\n")
    fab = open(os.path.join(d, "conv", "fabric.yaml")).read()
    check("LINK_DOWN becomes a link event 2 s + 1,500 us in, its difference (no rerouting) noted",
          p.returncode == 0 and "- { at: 2001500us, link: [S0, H2], state: down }" in fab
          and "the routes stay" in p.stdout, p.stdout + fab[-400:])
    p = convert(d, config=CONFIG.replace("CC_MODE 1", "CC_MODE 3"), extra=["--cc", "none"])
    check("--cc none runs an HPCC experiment's flows without congestion control", p.returncode == 0,
          p.stderr)
    # ... on the wire time of the simulator's HPCC packet (its 42-byte INT
    # header: 90 bytes around the payload) for a frame without a trailer.
    check("... and its frames take the wire time of the simulator's packets with INT (+32)",
          "wire_overhead: 32," in open(os.path.join(d, "conv", "fabric.yaml")).read())

    # run.py --cc hp's keys (CC_MODE 3): the hpcc section, INT in the
    # switches with the senders' units; the flows run HPCC on their ACKs.
    HP = (CONFIG.replace("CC_MODE 1", "CC_MODE 3")
          + "HAS_WIN 1\nVAR_WIN 1\nFAST_REACT 1\nU_TARGET 0.95\nMI_THRESH 0\nINT_MULTI 1\n"
          "MULTI_RATE 0\nSAMPLE_FEEDBACK 0\nRATE_BOUND 1\nGLOBAL_T 1\n")
    p = convert(d, config=HP)
    fab = open(os.path.join(d, "conv", "fabric.yaml")).read()
    sw = open(os.path.join(d, "conv", "switch.yaml")).read()
    check("CC_MODE 3: the hpcc section with run.py's keys, every flow cc: hpcc",
          p.returncode == 0 and "hpcc: { u_target: 0.95, mi_thresh: 0, fast_react: true" in fab
          and "int_multi: 1" in fab and fab.count("cc: hpcc") == 3, p.stderr + fab)
    check("... and an int section in the switches for the flows' priority, in INT_MULTI's units",
          "int: { priorities: [3], insert: false, multi: 1 }" in sw, sw)
    check("... its frames, trailer and all, on the wire time of the simulator's packets (90 "
          "bytes around the payload against 104)", "wire_overhead: -14," in fab, fab)
    runs_acked(d, "hpcc", "pfcfabric runs it: every flow completes under HPCC, each ACK echoing its INT "
               "records")
    # run.py --cc hpccPint (CC_MODE 10): HPCC's section with PINT's two
    # keys; the switches raise the PINT value with the same log base.
    p = convert(d, config=HP.replace("CC_MODE 3", "CC_MODE 10"))  # PINT_LOG_BASE 1.01, PINT_PROB 1.0
    fab = open(os.path.join(d, "conv", "fabric.yaml")).read()
    sw = open(os.path.join(d, "conv", "switch.yaml")).read()
    check("CC_MODE 10: the hpcc section with PINT_LOG_BASE and PINT_PROB, every flow cc: hpcc_pint",
          p.returncode == 0 and "pint_log_base: 1.01, pint_prob: 1.0 }" in fab
          and fab.count("cc: hpcc_pint") == 3, p.stderr + fab)
    check("... and the switches' int section with pint's log base",
          "int: { priorities: [3], insert: false, multi: 1, pint: { log_base: 1.01 } }" in sw, sw)
    runs_acked(d, "hpcc_pint", "pfcfabric runs it: every flow completes under HPCC-PINT on echoed PINT "
               "values")
    p = convert(d, config=HP.replace("CC_MODE 3", "CC_MODE 10").replace("PINT_LOG_BASE 1.01\n", ""))
    check("CC_MODE 10 without PINT_LOG_BASE: the simulator's own default 1.05, on both sides",
          p.returncode == 0 and "pint_log_base: 1.05 }" in open(os.path.join(d, "conv", "fabric.yaml")).read()
          and "pint: { log_base: 1.05 }" in open(os.path.join(d, "conv", "switch.yaml")).read(), p.stderr)
    for mode, name, key in ((7, "timely", "timely: { rate_ai: 50M"), (8, "dctcp", "dctcp: { rate_ai: 1G")):
        p = convert(d, config=CONFIG.replace("CC_MODE 1", f"CC_MODE {mode}") + "DCTCP_RATE_AI 1000Mb/s\n")
        fab = open(os.path.join(d, "conv", "fabric.yaml")).read()
        check(f"CC_MODE {mode}: the {name} section, every flow cc: {name}",
              p.returncode == 0 and key in fab and fab.count(f"cc: {name}") == 3, p.stderr + fab)

    # Paths: a leaf-spine (hosts 0-3, ToRs 4 and 5, spines 6-8) where ToR 4
    # has three equal-cost next hops towards hosts 2 and 3. The converter
    # gives each flow the simulator's addresses and a source port that makes
    # the switches' hash (switch.ecmp_hash_algorithm: hpcc, seeded with the
    # simulator's node IDs) pick the spine the simulator picks from its
    # next hops in its own order (sim_neighbour_order); pfcfabric's per-port
    # ecmp_tx at ToR 4 must count exactly the packets of the flows the
    # simulator's rule sends each way.
    check("MurmurHash3 x86-32 of one word: the published vectors ('test', 'aaaa')",
          H.murmur3_words([0x74736574], 0x9747b28c) == 0x704b81dc
          and H.murmur3_words([0x61616161], 0x9747b28c) == 0x5a97808a)
    LS = "9 5 10\n4 5 6 7 8\n" + "".join(
        f"{a} {b} {'25' if b < 6 else '100'}Gbps 0.001ms 0\n" for a, b in
        [(0, 4), (1, 4), (2, 5), (3, 5), (4, 6), (4, 7), (4, 8), (5, 6), (5, 7), (5, 8)])
    pairs = [(s_, d_) for s_ in (0, 1) for d_ in (2, 3)] * 3
    LSF = f"{len(pairs)}\n" + "".join(f"{s_} {d_} 3 100 {10000 * (i + 1)} 0.001\n"
                                       for i, (s_, d_) in enumerate(pairs))
    p = convert(d, topo=LS, flows=LSF)
    check("converts a leaf-spine", p.returncode == 0, p.stdout + p.stderr)
    fab = open(os.path.join(d, "conv", "fabric.yaml")).read()
    check("hosts at the simulator's addresses (11.0.<id>.1), switches seeded with their IDs",
          "{ name: H2, address: 11.0.2.1/24, gateway: 11.0.2.2 }" in fab
          and "ecmp_seeds: { S4: 4, S5: 5, S6: 6, S7: 7, S8: 8 }" in fab, fab)
    sw = open(os.path.join(d, "conv", "switch.yaml")).read()
    check("the simulator's hash in the switches", "ecmp_hash_algorithm: hpcc" in sw, sw)
    check("XOFF/XON decided as the simulator's MMU does, when the group's bytes move",
          "pfc: { decide: on_change }" in sw, sw)
    check("the buffer counts a packet's own bytes, as the simulator's MMU (no 128-byte cells)",
          "  cell_bytes: 1\n" in sw, sw)
    p = convert(d, topo=TOPO.replace("0 4 25Gbps 0.001ms", "0 4 25Gbps 0.002ms"))
    sw2 = open(os.path.join(d, "conv", "switch.yaml")).read()
    check("links of one speed with different delays: the switch's own headroom, said so",
          p.returncode == 0 and "headroom: auto" in sw2 and "headroom: 9375" not in sw2
          and "links of 25G with different delays" in p.stdout + p.stderr, p.stdout + p.stderr + sw2)
    p = convert(d, topo=LS, flows=LSF)
    sw = open(os.path.join(d, "conv", "switch.yaml")).read()
    check("ports 4x the hosts' rate take alpha 1/2 (the simulator's shift 3 - 2), and every port "
          "the simulator's headroom, 3 x rate x delay (1 us links: 9,375 bytes at 25G, 37,500 at 100G)",
          "lossless_by_speed: { 25G: { headroom: 9375 }, 100G: { alpha: 0.5, headroom: 37500 } }" in sw, sw)
    check("an ECN profile per link rate, on the ports of that speed (KMIN/KMAX/PMAX_MAP)",
          "SIM_25G: { green_min_threshold: 100000, green_max_threshold: 400000" in sw
          and "SIM_100G: { green_min_threshold: 400000, green_max_threshold: 1600000" in sw
          and "- { speed: 25G, priorities: [3], profile: SIM_25G }" in sw
          and "- { speed: 100G, priorities: [3], profile: SIM_100G }" in sw, sw)
    topo = H.read_topology(os.path.join(d, "topology.txt"))
    nbrs = H.sim_neighbour_order(
        {n: {b for a, b, _, _ in topo["links"] if a == n} | {a for a, b, _, _ in topo["links"] if b == n}
         for n in range(9)}, topo["switches"])
    check("the simulator's search order: hosts by id, then switches by descending id (their addresses)",
          nbrs[4] == [0, 1, 8, 7, 6], nbrs[4])
    def spine_packets(tor, acks):
        """Packets (10 a 10,000 bytes) each spine gets from `tor` by the
        simulator's rule: the data from S4, or the ACKs from S5, hashed
        with the data's ports swapped (the ACK's sport is the data's dport)."""
        want, seen = {6: 0, 7: 0, 8: 0}, {}
        for i, (s_, d_) in enumerate(pairs):
            k = seen.get((s_, d_), 0)
            seen[(s_, d_)] = k + 1
            a, b = (d_, s_) if acks else (s_, d_)
            key = (100 | (10000 + k) << 16) if acks else ((10000 + k) | 100 << 16)
            nh = H.next_hops_to(nbrs, topo["switches"], b)[tor]
            want[nh[H.murmur3_words((H.sim_ip(a), H.sim_ip(b), key), tor) % len(nh)]] += 10 * (i + 1)
        return want

    want = spine_packets(4, False)
    r = subprocess.run([fabric, "--fabric", os.path.join(d, "conv", "fabric.yaml"), "--out",
                        os.path.join(d, "ls")], capture_output=True, text=True)
    check("pfcfabric runs it", r.returncode == 0, r.stdout + r.stderr)
    res = json.load(open(os.path.join(d, "ls", "results.json")))
    got = {int(pt["name"][1:]): pt["ecmp_tx"] for pt in res["switches"]["S4"]["ports"]
           if pt["name"].startswith("S")}
    check("every flow over the spine the simulator picks (ToR S4's ecmp_tx per spine)",
          got == want and sum(1 for v in want.values() if v) >= 2, f"got {got}, want {want}")
    # The ACKs back from the receivers' ToR S5: the converter gives each
    # flow an ack_src_port that makes the emulated switches agree with the
    # simulator's, one ACK a packet (L2_ACK_INTERVAL 1).
    want = spine_packets(5, True)
    got = {int(pt["name"][1:]): pt["ecmp_tx"] for pt in res["switches"]["S5"]["ports"]
           if pt["name"].startswith("S")}
    check("every flow's ACKs over the spine the simulator's ACKs take (ToR S5's ecmp_tx per spine)",
          got == want and sum(1 for v in want.values() if v) >= 2 and "ack_src_port: " in fab,
          f"got {got}, want {want}")
finish()
