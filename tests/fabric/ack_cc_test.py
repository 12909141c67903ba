#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The ACK-driven congestion controls of the emulated NICs (suite 'fabric',
virtual clock) on the 3-to-1 incast of configs/fabric/incast-3to1.yaml,
switches with configs/fabric/switch-lossless-ecn.yaml plus an `int` section
for the flows' priority. Three RC flows of 512 KB under each mode:

  hpcc    every data frame carries an INT trailer: tshark with
          tools/wireshark/int.lua reads none-yet on the sender's link and
          two hop records (A's 40G port, then B's 10G port) on B-H4, and
          every ACK echoing them back; each flow's control updated once an
          RTT, with no ACK lacking its echo; B's queue to H4 kept short
          (HPCC's point): far fewer pauses than the same incast without
          congestion control;
  hpcc_pint  every data frame carries a PINT trailer (kind 5) that leaves
          its sender at power 0 and reaches H4 raised by the switches
          (int.pint, the base and RTT filled in by pfcfabric), each ACK
          echoing its frame's power (kind 6); B computed it for every data
          frame it sent to H4; far fewer pauses than without control;
  timely  a timestamp trailer on every data frame, echoed in every ACK;
  dctcp   the ACK of every CE-marked packet carries BECN, one for one, and
          the senders cut their rates;
  none    the hosts report the time received PFC frames paused them.

Every flow of every mode completes with nothing resent and no lossless
drop; a rerun, and a run on two threads, give results.json byte for byte
(HPCC and HPCC-PINT, whose switches round at random).

  ack_cc_test.py BUILD_DIR SOURCE_DIR
"""
import filecmp
import os
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish, run, tshark  # noqa: E402
from pfclib.fabric_files import flow, incast_3to1, write  # noqa: E402
from pfclib.fabric_results import prio_sum, results  # noqa: E402

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
cfg = os.path.abspath(os.path.join(src, "configs/fabric"))
LUA = os.path.join(src, "tools/wireshark/int.lua")


def int_rows(pcap, fields):
    out = subprocess.run(["tshark", "-X", f"lua_script:{LUA}", "-r", pcap, "-Y", "int", "-T", "fields",
                          "-E", "separator=;"] + sum((["-e", f] for f in fields), []),
                         capture_output=True, text=True)
    return [line.split(";") for line in out.stdout.splitlines() if line]


def spec_of(tmp, cc, name="f.yaml"):
    switch = os.path.join(tmp, f"switch-{cc}.yaml")
    with open(os.path.join(cfg, "switch-lossless-ecn.yaml")) as f, open(switch, "w") as o:
        o.write(f.read() + "int: { priorities: [1]" + (", pint: {}" if cc == "hpcc_pint" else "")
                + " }\n")
    flows = [flow(f"f{i}", f"H{i}", "H4", dscp=1, prio=1, transport="rc", bytes=524288,
                  ecn="ect0", cc=cc) for i in (1, 2, 3)]
    return write(os.path.join(tmp, name), incast_3to1(
        cfg, {"clock": "virtual", "duration": "4ms", "bin": "250us", "seed": 1}, flows, switch,
        captures=[{"link": ["B", "H4"], "file": "b-h4.pcapng"},
                  {"link": ["H1", "A"], "file": "h1-a.pcapng"}]))


with tempfile.TemporaryDirectory(prefix="fabric-ackcc-") as tmp:
    outs = {}
    for cc in ("hpcc", "hpcc_pint", "timely", "dctcp", "none"):
        out = os.path.join(tmp, cc)
        run([fabric, "--fabric", spec_of(tmp, cc, f"{cc}.yaml"), "--out", out])
        r = outs[cc] = results(out)
        check(f"{cc}: every flow completes, nothing resent, no lossless drop",
              all(f["rc"]["completed"] and f["rc"]["retransmits"] == 0 for f in r["flows"])
              and r["lossless_drops"] == 0, str([(f["name"], f["rc"]) for f in r["flows"]]))
        if cc != "none":
            check(f"{cc}: results.json names each flow's control",
                  all(f["cc"]["mode"] == cc for f in r["flows"]), str([f.get("cc") for f in r["flows"]]))

    # HPCC: the records on the wire.
    b = int_rows(os.path.join(tmp, "hpcc", "b-h4.pcapng"),
                 ["infiniband.bth.opcode", "int.kind", "int.nhop", "int.multi", "int.hop.rate_bps"])
    data = [x for x in b if x[0] != "17"]
    acks = [x for x in b if x[0] == "17"]
    print(f"hpcc B-H4: {len(data)} data frames, {len(acks)} ACKs with a trailer")
    check("hpcc: every data frame on B-H4 has two hop records, A's 40G port then B's 10G port",
          len(data) == 3 * 525 and all(x[1] == "1" and x[2] == "2" and x[3] == "4"
                                       and x[4] == "40000000000,10000000000" for x in data),
          str(data[:3]))
    check("hpcc: every ACK echoes them (kind 2, switches leave it)",
          len(acks) == len(data) and all(x[1] == "2" and x[2] == "2" for x in acks), str(acks[:3]))
    h1 = int_rows(os.path.join(tmp, "hpcc", "h1-a.pcapng"), ["infiniband.bth.opcode", "int.kind", "int.nhop"])
    check("hpcc: the sender's own frames leave with an empty trailer, its ACKs come back with two hops",
          all(x[2] == "0" for x in h1 if x[0] != "17") and all(x[2] == "2" for x in h1 if x[0] == "17")
          and len(h1) == 2 * 525, str(h1[:2]))
    hp = outs["hpcc"]
    check("hpcc: per-RTT updates and no ACK without its echo",
          all(f["cc"]["updates"] > 0 and f["cc"]["acks_without_echo"] == 0 for f in hp["flows"]),
          str([f["cc"] for f in hp["flows"]]))
    b_hops = sum(p["prio"][1]["int_hops"] for p in hp["switches"]["B"]["ports"])
    check("hpcc: switch B wrote one record per data frame it sent to H4", b_hops == 3 * 525, str(b_hops))
    hosts = outs["none"]["hosts"]
    check("none: the hosts report the time the PFC frames they received paused them (paused_ns), "
          "and only those that received one",
          all((hosts[h]["paused_ns"] > 0) == (hosts[h]["pfc_rx"] > 0) for h in hosts)
          and any(hosts[h]["paused_ns"] > 0 for h in hosts) and hosts["H4"]["paused_ns"] == 0,
          str({h: (v["pfc_rx"], v["paused_ns"]) for h, v in hosts.items()}))
    pauses = {cc: prio_sum(outs[cc], "pfc_xoff_tx") for cc in ("hpcc", "hpcc_pint", "none")}
    print("XOFF sent:", pauses)
    check("hpcc keeps the bottleneck's queue short: far fewer XOFFs than without control",
          pauses["hpcc"] * 4 <= pauses["none"] and pauses["none"] > 0, str(pauses))

    # HPCC-PINT: one value, raised on the way, echoed back.
    b = int_rows(os.path.join(tmp, "hpcc_pint", "b-h4.pcapng"),
                 ["infiniband.bth.opcode", "int.kind", "int.pint.power"])
    data = [x for x in b if x[0] != "17"]
    acks = [x for x in b if x[0] == "17"]
    powers = sorted(int(x[2]) for x in data if x[1] == "5")
    print(f"hpcc_pint B-H4: {len(data)} data frames, {len(acks)} ACKs; power min/median/max "
          f"{powers[0] if powers else '-'}/{powers[len(powers) // 2] if powers else '-'}/"
          f"{powers[-1] if powers else '-'}")
    check("hpcc_pint: every data frame on B-H4 carries a PINT trailer the switches raised",
          len(powers) == 3 * 525 and powers[len(powers) // 2] > 0, str(data[:3]))
    check("hpcc_pint: every ACK echoes its frame's power (kind 6)",
          len(acks) == len(data) and all(x[1] == "6" for x in acks)
          and sorted(int(x[2]) for x in acks) == powers, str(acks[:3]))
    h1 = int_rows(os.path.join(tmp, "hpcc_pint", "h1-a.pcapng"),
                  ["infiniband.bth.opcode", "int.kind", "int.pint.power"])
    check("hpcc_pint: the sender's frames leave with power 0",
          all(x[1] == "5" and x[2] == "0" for x in h1 if x[0] != "17") and len(h1) == 2 * 525, str(h1[:2]))
    pp = outs["hpcc_pint"]
    b_pint = sum(p["prio"][1]["int_pint"] for p in pp["switches"]["B"]["ports"])
    check("hpcc_pint: switch B computed the utilisation of every data frame it sent to H4, and the "
          "senders updated once an RTT with every ACK echoed",
          b_pint == 3 * 525 and all(f["cc"]["updates"] > 0 and f["cc"]["acks_without_echo"] == 0
                                    for f in pp["flows"]), f"{b_pint} {[f['cc'] for f in pp['flows']]}")
    check("hpcc_pint keeps the bottleneck's queue short: far fewer XOFFs than without control",
          pauses["hpcc_pint"] * 4 <= pauses["none"], str(pauses))

    # TIMELY: the send time out and back.
    t = int_rows(os.path.join(tmp, "timely", "b-h4.pcapng"), ["infiniband.bth.opcode", "int.kind"])
    check("timely: a timestamp on every data frame (kind 3), echoed in every ACK (kind 4)",
          sum(1 for x in t if x[0] != "17" and x[1] == "3") == 3 * 525
          and sum(1 for x in t if x[0] == "17" and x[1] == "4") == 3 * 525, str(len(t)))

    # DCTCP: BECN on the ACK of each CE-marked packet.
    pcap = os.path.join(tmp, "dctcp", "b-h4.pcapng")
    ce = tshark(pcap, ["frame.number"], "infiniband.bth.opcode != 17 && ip.dsfield.ecn == 3")
    becn = tshark(pcap, ["frame.number"], "infiniband.bth.opcode == 17 && frame[46] & 0x40")
    print(f"dctcp: {len(ce)} CE-marked data frames, {len(becn)} ACKs with BECN")
    check("dctcp: one BECN ACK for each CE-marked data frame", len(ce) > 0 and len(becn) == len(ce),
          f"{len(ce)} vs {len(becn)}")
    check("dctcp: every sender saw the echoes and cut",
          all(f["cc"]["ecn_echoes"] > 0 and f["cc"]["cuts"] > 0 for f in outs["dctcp"]["flows"]),
          str([f["cc"] for f in outs["dctcp"]["flows"]]))

    # Repeatable: again, and on two threads.
    for cc in ("hpcc", "hpcc_pint"):
        again = os.path.join(tmp, f"{cc}-again")
        run([fabric, "--fabric", os.path.join(tmp, f"{cc}.yaml"), "--out", again])
        check(f"{cc}: a rerun gives results.json byte for byte",
              filecmp.cmp(os.path.join(tmp, cc, "results.json"), os.path.join(again, "results.json"), False))
        two = os.path.join(tmp, f"{cc}-threads")
        run([fabric, "--fabric", os.path.join(tmp, f"{cc}.yaml"), "--out", two, "--threads", "2"])
        check(f"{cc}: two threads give results.json byte for byte",
              filecmp.cmp(os.path.join(tmp, cc, "results.json"), os.path.join(two, "results.json"), False))
finish()
