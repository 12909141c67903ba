#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""ECN marking in the fabric emulator (suite 'fabric', virtual clock). The
3-to-1 incast of configs/fabric/incast-3to1.yaml (B's port to H4 is the
bottleneck): f1 and f2 send ECT(0), f3 Not-ECT, priority 1 lossless, with
configs/fabric/switch-lossless-ecn.yaml's WRED profile (KMIN 5K, KMAX 20K,
PMAX 10%) on priority 1 of every port. Checks: B marks at its port to H4 and nowhere else needs to;
every mark reaches its receiver (the flows' CE frames sum to the switches'
ecn_marked); the Not-ECT flow is never marked and is counted as ecn_not_ect;
tshark reads as many CE frames in the B-H4 capture; no lossless drop; each
switch's generated config has its own seed from the fabric's, and a rerun
gives the same results byte for byte. Then DCQCN on the same incast: CNPs
sent and received one for one, tshark decoding them, every sender cutting
its rate, a fair share, and far fewer pause frames than PFC alone.

  ecn_test.py BUILD_DIR SOURCE_DIR
"""
import os
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish, run  # noqa: E402
from pfclib.fabric_files import flow, incast_3to1, write  # noqa: E402
from pfclib.fabric_results import prio_rows, prio_sum, results  # noqa: E402

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
cfg = os.path.abspath(os.path.join(src, "configs/fabric"))



def fabric_run(tmp, tag, seed, cc="none", ecn3="not-ect", duration="5ms"):
    """The 3-to-1 incast with the WRED profile: f1, f2 ECT(0), f3 ecn3."""
    path = os.path.join(tmp, f"fabric-seed{seed}-{cc}-{ecn3}.yaml")  # results.json names it
    flows = [flow(f"f{i}", f"H{i}", "H4", dscp=1, prio=1, frame=1000, ecn=ecn, cc=cc)
             for i, ecn in ((1, "ect0"), (2, "ect0"), (3, ecn3))]
    write(path, incast_3to1(cfg, {"clock": "virtual", "duration": duration, "bin": "250us", "seed": seed}, flows,
                            switch=os.path.join(cfg, "switch-lossless-ecn.yaml"),
                            captures=[{"link": ["B", "H4"], "file": "b-h4.pcapng"}]))
    out = os.path.join(tmp, tag)
    run([fabric, "--fabric", path, "--out", out])
    return out, results(out)


def pfc_sent(r):
    return prio_sum(r, "pfc_xoff_tx", "pfc_refresh_tx")


def marks(r, counter):
    return {(s, port, q["prio"]): q[counter] for s, port, q in prio_rows(r) if q[counter]}


with tempfile.TemporaryDirectory(prefix="fabric-ecn-") as tmp:
    out, r = fabric_run(tmp, "a", 1)
    flows = {f["name"]: f for f in r["flows"]}
    marked, not_ect = marks(r, "ecn_marked"), marks(r, "ecn_not_ect")
    print(f"ecn_marked {marked}; ecn_not_ect {not_ect}; "
          f"ce_frames f1 {flows['f1']['ce_frames']} f2 {flows['f2']['ce_frames']} "
          f"of {flows['f1']['rx_frames']} and {flows['f2']['rx_frames']}")
    check("B marks at its port to H4, priority 1", marked.get(("B", "H4", 1), 0) > 0, str(marked))
    # Marked frames still on a link or in a queue at the end have not
    # arrived; a frame A marked is not B's mark again.
    ce = flows["f1"]["ce_frames"] + flows["f2"]["ce_frames"]
    flight = sum(flows[f]["tx_frames"] - flows[f]["rx_frames"] - flows[f]["lost"] for f in ("f1", "f2"))
    check("every mark reaches its receiver but those in flight at the end",
          ce <= sum(marked.values()) <= ce + flight, f"{sum(marked.values())} marked, {ce} CE, {flight} in flight")
    check("some ECT frames pass unmarked (the curve, not a wall)",
          0 < flows["f1"]["ce_frames"] < flows["f1"]["rx_frames"], str(flows["f1"]))
    check("the Not-ECT flow is never marked, and counted", flows["f3"]["ce_frames"] == 0
          and not_ect.get(("B", "H4", 1), 0) > 0, f"{flows['f3']['ce_frames']} {not_ect}")
    check("no lossless drop", r["lossless_drops"] == 0, str(r["lossless_drops"]))
    wire = subprocess.run(["tshark", "-r", os.path.join(out, "b-h4.pcapng"), "-Y",
                         "ip.dsfield.ecn == 3", "-T", "fields", "-e", "ip.dsfield.ecn"],
                        capture_output=True, text=True).stdout.split()
    check("tshark reads every CE frame in the B-H4 capture (and those on the wire at the end)",
          ce <= len(wire) <= ce + flight, str(len(wire)))
    seeds = {}
    for name in ("A", "B"):
        text = open(os.path.join(out, "switches", name + ".yaml")).read()
        seeds[name] = [ln for ln in text.splitlines() if ln.lstrip().startswith("seed:")]
    check("each switch has its own ECN seed from the fabric's", seeds["A"] != seeds["B"]
          and all(len(v) == 1 for v in seeds.values()), str(seeds))
    out2, _ = fabric_run(tmp, "b", 1)
    same = open(os.path.join(out, "results.json")).read() == open(os.path.join(out2, "results.json")).read()
    check("a rerun is byte-identical", same)
    _, r3 = fabric_run(tmp, "c", 2)
    check("another fabric seed, other draws", marks(r3, "ecn_marked") != marked
          or [f["ce_frames"] for f in r3["flows"]] != [f["ce_frames"] for f in r["flows"]])

    # DCQCN: every receiver answers CE with RoCEv2 CNPs (DSCP 48, at most one
    # per flow per 50 us); the senders cut their rates, and the switches
    # pause far less than with PFC alone, on the same 20 ms incast.
    outs = {}
    for cc in ("none", "dcqcn"):
        outs[cc] = fabric_run(tmp, "dcqcn-" + cc, 1, cc=cc, ecn3="ect0", duration="20ms")
    (_, rn), (od, rd) = outs["none"], outs["dcqcn"]
    fl = {f["name"]: f for f in rd["flows"]}
    h4 = rd["hosts"]["H4"]
    print(f"PFC frames sent: {pfc_sent(rn)} with PFC alone, {pfc_sent(rd)} with DCQCN; "
          f"CNPs {h4['cnp_tx']}; end rates {[fl[f]['dcqcn']['rate_bps_end'] for f in fl]}")
    check("dcqcn: the receiver sends CNPs, each reaches its sender",
          h4["cnp_tx"] > 0 and sum(f["cnps_received"] for f in fl.values()) == h4["cnp_tx"]
          and all(f["cnps_sent"] == f["cnps_received"] for f in fl.values()), str(h4))
    check("dcqcn: every sender cut its rate", all(f["dcqcn"]["cuts"] > 0 for f in fl.values()),
          str([f["dcqcn"] for f in fl.values()]))
    check("dcqcn: under a third of PFC alone's pause frames", 3 * pfc_sent(rd) < pfc_sent(rn),
          f"{pfc_sent(rd)} vs {pfc_sent(rn)}")
    check("dcqcn: no lossless drop", rd["lossless_drops"] == 0, str(rd["lossless_drops"]))
    rates = [f["rx_bytes"] for f in fl.values()]
    check("dcqcn: the three flows share the bottleneck within 10%", max(rates) < 1.1 * min(rates),
          str(rates))
    cnps = subprocess.run(["tshark", "-r", os.path.join(od, "b-h4.pcapng"), "-Y",
                           "infiniband.bth.opcode == 129 && ip.dsfield.dscp == 48", "-T", "fields",
                           "-e", "infiniband.bth.destqp"], capture_output=True, text=True).stdout.split()
    check("tshark decodes every CNP (BTH opcode 0x81, DSCP 48, a flow's QP: 16 + its id)",
          len(cnps) == h4["cnp_tx"] and set(cnps) <= {"0x000011", "0x000012", "0x000013"},
          f"{len(cnps)} {sorted(set(cnps))}")
finish()
