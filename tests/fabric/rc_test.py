#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""RC transport in the emulated NICs (suite 'fabric', virtual clock), on the
3-to-1 incast of configs/fabric/incast-3to1.yaml with ECN marking
(switch-lossless-ecn.yaml): three RC queue pairs writing 64 KB messages to
H4, one of them under DCQCN. Checks: every message completes with nothing
resent (lossless: PFC holds, nothing drops); tshark decodes the capture of
B-H4 as RoCEv2 (RDMA WRITE First/Middle/Last with RETH and PSNs in order
for each QP, one ACK with an AETH per packet, CE marks on WRITEs, CNPs) and
its counts match results.json; a rerun gives results.json byte for byte;
jumbo frames (rc.mtu 4096 with switch.mtu 9000) cross the switches as
4,170-byte frames; rc.mtu 4096 without jumbo switch ports, a frame size on
an rc flow, an rc flow to nothing and a bad rc key are refused before the
run with file:line errors.

  rc_test.py BUILD_DIR SOURCE_DIR
"""
import collections
import filecmp
import os
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish, run, tshark, write_file  # noqa: E402
from pfclib.fabric_results import results  # noqa: E402

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
cfg = os.path.abspath(os.path.join(src, "configs/fabric"))

INCAST = """fabric: {{ clock: virtual, duration: 2ms, bin: 250us, seed: 1 }}
include: {cfg}/incast-3to1.yaml
switch: {{ config: {cfg}/switch-lossless-ecn.yaml{mtu} }}
rc: {{ mtu: {rc_mtu} }}
flows:
  - {{ name: f1, from: H1, to: H4, dscp: 1, prio: 1, transport: rc, bytes: 256K, message: 64K, ecn: ect0, cc: dcqcn }}
  - {{ name: f2, from: H2, to: H4, dscp: 1, prio: 1, transport: rc, bytes: 256K, message: 64K, ecn: ect0 }}
  - {{ name: f3, from: H3, to: H4, dscp: 1, prio: 1, transport: rc, bytes: 128K, message: 64K }}
captures:
  - {{ link: [B, H4], file: b-h4.pcapng }}
"""


with tempfile.TemporaryDirectory(prefix="fabric-rc-") as tmp:
    path = write_file(tmp, "rc.yaml", INCAST.format(cfg=cfg, mtu="", rc_mtu=1000))
    out = os.path.join(tmp, "a")
    run([fabric, "--fabric", path, "--out", out])
    r = results(out)
    flows = {f["name"]: f for f in r["flows"]}
    for n, f in flows.items():
        print(n, f["rc"], f["responder"], f["fct"])
    check("every message completes", all(f["rc"]["completed"] for f in flows.values())
          and [f["rc"]["messages_done"] for f in flows.values()] == [4, 4, 2], str({n: f["rc"] for n, f in flows.items()}))
    check("nothing resent, nothing out of sequence (PFC: lossless)",
          all(f["rc"]["retransmits"] == 0 and f["responder"]["out_of_sequence"] == 0 for f in flows.values()))
    check("each responder took every packet once", all(f["responder"]["accepted"] == f["fct"]["frames"]
                                                       for f in flows.values()))
    check("no lossless drop", r["lossless_drops"] == 0, str(r["lossless_drops"]))
    check("a slowdown >= 1 for each flow (three share a link)",
          all(f["fct"]["slowdown"] >= 1 for f in flows.values()), str([f["fct"] for f in flows.values()]))

    pcap = os.path.join(out, "b-h4.pcapng")
    writes = tshark(pcap, ["infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
                           "infiniband.bth.a", "infiniband.reth.dmalen", "ip.dsfield.ecn"],
                    "infiniband.bth.opcode <= 10")
    acks = tshark(pcap, ["infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.aeth.syndrome"],
                  "infiniband.bth.opcode == 17")
    cnps = tshark(pcap, ["infiniband.bth.destqp"], "infiniband.bth.opcode == 129")
    ops = collections.Counter(int(w[0]) for w in writes)
    print(f"tshark: WRITE opcodes {dict(ops)}, {len(acks)} ACKs, {len(cnps)} CNPs")
    check("tshark decodes RDMA WRITE First, Middle and Last (6, 7, 8)", set(ops) == {6, 7, 8}, str(ops))
    check("every First carries a RETH with the message's 64 KB",
          all(w[4] == "65536" for w in writes if w[0] == "6") and ops[6] == 10, str(ops[6]))
    check("AckReq on the Lasts only", writes != [] and all((w[3] in ("1", "True")) == (w[0] == "8") for w in writes))
    by_qp = collections.defaultdict(list)
    for w in writes:
        by_qp[w[1]].append(int(w[2]))
    check("each QP's PSNs arrive in order, 0 to its last, each once",
          all(p == list(range(len(p))) for p in by_qp.values()) and len(by_qp) == 3,
          str({q: (len(p), p[:3]) for q, p in by_qp.items()}))
    h4 = r["hosts"]["H4"]
    check("tshark's ACKs match H4's ack_tx, all with syndrome ACK",
          len(acks) == h4["ack_tx"] and all(int(a[2], 0) == 0x1f for a in acks), f"{len(acks)} {h4['ack_tx']}")
    ce = sum(1 for w in writes if w[5] == "3")
    check("CE marks on WRITEs as the flows count them, CNPs as H4 sent them",
          ce == sum(f["ce_frames"] for f in flows.values()) > 0 and len(cnps) == h4["cnp_tx"] > 0,
          f"CE {ce} CNPs {len(cnps)}")
    check("the DCQCN flow cut its rate on CNPs", flows["f1"]["dcqcn"]["cuts"] > 0, str(flows["f1"]["dcqcn"]))

    out2 = os.path.join(tmp, "b")
    run([fabric, "--fabric", path, "--out", out2])
    check("a rerun gives results.json byte for byte",
          filecmp.cmp(os.path.join(out, "results.json"), os.path.join(out2, "results.json"), shallow=False))

    jumbo = write_file(tmp, "jumbo.yaml", INCAST.format(cfg=cfg, mtu=", mtu: 9000", rc_mtu=4096))
    outj = os.path.join(tmp, "j")
    run([fabric, "--fabric", jumbo, "--out", outj])
    rj = results(outj)
    lens = collections.Counter(int(x[0]) for x in tshark(os.path.join(outj, "b-h4.pcapng"), ["frame.len"],
                                                         "infiniband.bth.opcode <= 10"))
    check("jumbo: 4,096-byte payloads cross the switches (4,170-byte Firsts, 4,154-byte Middles)",
          lens[4170] > 0 and lens[4154] > 0, str(lens.most_common(4)))
    check("jumbo: every message completes, no lossless drop",
          all(f["rc"]["completed"] for f in rj["flows"]) and rj["lossless_drops"] == 0)

    bad = [
        (INCAST.format(cfg=cfg, mtu="", rc_mtu=4096), "rc.mtu: 4096 makes 4170-byte frames"),
        (INCAST.format(cfg=cfg, mtu="", rc_mtu=1000).replace("transport: rc, bytes: 128K",
                                                            "transport: rc, frame: 500, bytes: 128K"),
         "flows[2].frame: expected no frame size on an rc flow"),
        (INCAST.format(cfg=cfg, mtu="", rc_mtu=1000).replace("rc: { mtu: 1000 }", "rc: { mtu: 1000, window: 4 }"),
         "rc.window: unknown field"),
        (INCAST.format(cfg=cfg, mtu="", rc_mtu=1000).replace("transport: rc, bytes: 128K, message: 64K",
                                                            "transport: rc"),
         "expected bytes or message with transport rc"),
        (INCAST.format(cfg=cfg, mtu="", rc_mtu=1000).replace("bytes: 128K, message: 64K", "message: 64K")
         .replace("transport: rc, message", "message"), "expected no message size on a raw flow"),
    ]
    for i, (text, want) in enumerate(bad):
        p = subprocess.run([fabric, "--fabric", write_file(tmp, f"bad{i}.yaml", text), "--out",
                            os.path.join(tmp, f"bad{i}"), "--check"], capture_output=True, text=True)
        msg = (p.stdout + p.stderr).strip().splitlines()
        msg = msg[-1] if msg else ""
        check(f"refused: {want}", p.returncode != 0 and want in msg and f"bad{i}.yaml" in msg, msg)
finish()
