#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tagger on an operator's DSCP plan (suite 'fabric', virtual clock; issue
28 item 2). Fig. 12's shuffles as RoCEv2 with DCQCN, data on DSCP 26 /
priority 3 and CNPs on DSCP 48 / priority 6 (configs/fabric/roce-plan-*.yaml,
configs/tagger/roce-plan.yaml). Checks:
  - without Tagger, the 1-bounce routes deadlock priority 3 (the verdict
    names the cycle and --expect no-deadlock exits 3);
  - pfc-tagger's rules on the plan verify, map 26 -> 3, 27 -> 4, 48 -> 6 and
    keep DSCP 48; `verify --plan` refuses a file whose CNP rule was removed;
  - with them, the run is deadlock-free and loses nothing (--expect), every
    CNP sent is received, and tshark on H1's link sees data only on DSCP 26
    and 27 (bounced packets climbed) and every CNP on DSCP 48;
  - the same traffic with plan-less rules (tag t = DSCP t) is what the plan
    fixes: the RoCE data and the CNPs arrive rewritten to DSCP 0, lossy.

  roce_plan_test.py BUILD_DIR SOURCE_DIR
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish, run
from pfclib.fabric_results import results

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
tagger = os.path.join(build, "ctrl/tagger/pfc-tagger")
cfg = os.path.join(src, "configs/fabric")
plan = os.path.join(src, "configs/tagger/roce-plan.yaml")


def fabric_run(name, out, *extra):
    return subprocess.run([fabric, "--fabric", os.path.join(cfg, name), "--out", out, *extra],
                          capture_output=True, text=True, timeout=300)


def on_wire(pcap):
    """(DSCP, is a CNP) -> frames, as tshark decodes H1's link."""
    p = subprocess.run(["tshark", "-r", pcap, "-d", "udp.port==4791,infiniband", "-T", "fields",
                        "-e", "ip.dsfield.dscp", "-e", "infiniband.bth.opcode"],
                       capture_output=True, text=True, timeout=120)
    check("tshark reads the capture", p.returncode == 0, p.stderr[-300:] if p.returncode else "")
    seen = collections.Counter()
    for line in p.stdout.splitlines():
        dscp, op = (line.split("\t") + [""])[:2]
        seen[(int(dscp), op == "129")] += 1
    return seen


with tempfile.TemporaryDirectory(prefix="fabric-roce-plan-") as tmp:
    p = fabric_run("roce-plan-shuffle.yaml", f"{tmp}/without", "--expect", "no-deadlock")
    check("without Tagger: --expect no-deadlock exits 3", p.returncode == 3, p.stdout[-300:] if p.returncode != 3 else "")
    check("without Tagger: the verdict names the priority-3 cycle",
          re.search(r"verdict: DEADLOCK .*S1 .*S2 .*\(priority 3\)", p.stdout) is not None,
          "" if "DEADLOCK" in p.stdout else p.stdout[-500:])

    t = run([tagger, "tag", "--topo", f"{tmp}/without/topology.json", "--elp-gen", "clos",
             "--bounces", "1", "--algo", "clos", "--plan", plan, "-o", f"{tmp}/rules"])
    check("rules on the plan verify", "verified=yes" in t.stdout, t.stdout.splitlines()[-1])
    check("the summary shows the plan", "tag 2: DSCP 27 (priority 4), lossless" in t.stdout)
    l2 = open(f"{tmp}/rules/L2.yaml").read()
    check("L2's qos is the plan's", "tag_map: {26: 3, 27: 4, 48: 6}" in l2 and
          "lossless: [3, 4]" in l2)
    check("L2 keeps CNPs", '{ tag: 48, in: "*", out: "*", new_tag: 48, priority: 0 }' in l2)
    v = run([tagger, "verify", "--topo", f"{tmp}/without/topology.json", "--elp-gen", "clos",
             "--bounces", "1", "--rules", f"{tmp}/rules", "--allow-extra", "--plan", plan])
    check("verify --plan: OK", "verify: OK" in v.stdout, v.stdout.splitlines()[0])
    os.makedirs(f"{tmp}/broken")
    for f in os.listdir(f"{tmp}/rules"):
        text = open(f"{tmp}/rules/{f}").read()
        if f == "L2.yaml":
            text = "\n".join(x for x in text.splitlines() if "tag: 48," not in x) + "\n"
        open(f"{tmp}/broken/{f}", "w").write(text)
    b = subprocess.run([tagger, "verify", "--topo", f"{tmp}/without/topology.json", "--elp-gen",
                        "clos", "--bounces", "1", "--rules", f"{tmp}/broken", "--allow-extra",
                        "--plan", plan], capture_output=True, text=True, timeout=60)
    check("verify --plan refuses L2 without its CNP rule", b.returncode != 0 and
          "L2.yaml: pass class DSCP 48 (priority 6) is rewritten to DSCP 0" in b.stderr,
          b.stdout[-200:] + b.stderr[-300:])

    w = fabric_run("roce-plan-tagger.yaml", f"{tmp}/with", "--rules", f"{tmp}/rules",
                   "--expect", "no-deadlock,lossless,no-loss")
    check("with Tagger on the plan: no deadlock, nothing lost (--expect exits 0)",
          w.returncode == 0, w.stdout[-500:] + w.stderr[-300:] if w.returncode else "")
    r = results(f"{tmp}/with")
    sent = sum(f["cnps_sent"] for f in r["flows"])
    check("CNPs were sent", sent > 0, str(sent))
    check("every CNP sent was received",
          all(f["cnps_sent"] == f["cnps_received"] for f in r["flows"]))
    seen = on_wire(f"{tmp}/with/t1-h1.pcapng")
    data = {d for d, cnp in seen if not cnp}
    to_h1 = sum(f["cnps_sent"] for f in r["flows"] if f["to"] == "H1")
    check("data to H1 on DSCP 26 and 27 only, some bounced to 27", data == {26, 27}, str(seen))
    check("every CNP H1 sent is on DSCP 48", seen[(48, True)] == to_h1 and
          sum(n for (d, cnp), n in seen.items() if cnp) == to_h1, f"{seen} vs {to_h1}")

    # The hazard the plan removes: plan-less rules make DSCP 26 and 48 lossy.
    run([tagger, "tag", "--topo", f"{tmp}/without/topology.json", "--elp-gen", "clos",
         "--bounces", "1", "--algo", "clos", "-o", f"{tmp}/rules-noplan"])
    n = fabric_run("roce-plan-tagger.yaml", f"{tmp}/noplan", "--rules", f"{tmp}/rules-noplan")
    check("plan-less rules: pfcfabric warns before the run that DSCP 26 turns lossy",
          "warning: flow H9-H1: no rewrite rule of T3 matches DSCP 26 and its `unmatched: lossy` "
          "rewrites it to DSCP 0, lossy" in n.stderr, n.stderr[-400:])
    check("rules on the plan: no such warning", "warning" not in w.stderr, w.stderr[-400:])
    seen = on_wire(f"{tmp}/noplan/t1-h1.pcapng")
    check("plan-less rules: the RoCE data arrives rewritten to DSCP 0, lossy (so unmarked: no CNP)",
          set(seen) == {(0, False)}, str(seen))
finish()
