#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The Python half of bench/cost/table.sh (run by path, standard library
and pfclib on PYTHONPATH, as bench/lib.sh sets it):

  table.py stages BENCH_JSON STAGES_JSON OUT_JSON
      the stage split of one callgrind profile (callgrind_stages.py) with
      the packets pipeline_bench forwarded in it
  table.py testpmd OUT
      instructions per packet of testpmd's forwarding thread, from OUT.log
      and callgrind's per-thread files OUT-*
  table.py table L2_JSON L3_JSON TESTPMD_MAC TESTPMD_IO
      the table of instructions per packet by stage, and the RESULT line"""
import glob
import json
import re
import sys

from pfclib.bench_output import benchmark, callgrind_total

ORDER = [("rx", "rx burst (PMD + ethdev)"), ("parse", "parse (+ IPv4 checksum verify)"),
         ("classify", "classify (tag -> priority)"), ("route", "route (L2 table / LPM + neighbour)"),
         ("admit", "admit (buffer accounting)"), ("rewrite", "rewrite (Tagger table, DSCP, TTL)"),
         ("ingress loop", "ingress loop (drops, metadata, grouping)"), ("enqueue", "enqueue (egress rings)"),
         ("schedule", "schedule (dequeue, scheduler)"), ("tx", "tx (stash, tx burst, PMD)"),
         ("release", "release (buffer accounting)"), ("pfc", "PFC (generate, publish, pause)"),
         ("counters", "counters"), ("loop", "worker round loop")]


def stages(bench_json, stages_json, out_json):
    with open(stages_json) as f:
        st = json.load(f)
    st["packets"] = int(benchmark(bench_json)["tx_total"])
    with open(out_json, "w") as f:
        json.dump(st, f)


def testpmd(out):
    with open(out + ".log") as f:
        log = f.read()
    m = re.search(r"Accumulated forward statistics for all ports.*?TX-packets:\s*(\d+)", log, re.S)
    if not m:
        sys.exit("testpmd printed no forward statistics")
    # The forwarding lcore's thread is the one that executed the most.
    totals = []
    for f in glob.glob(out + "-*"):
        try:
            totals.append(callgrind_total(f))
        except AttributeError:  # no totals: line in that thread's file
            pass
    print(f"{max(totals) / int(m.group(1)):.1f}")


def table(l2_json, l3_json, tp_mac, tp_io):
    with open(l2_json) as a, open(l3_json) as b:
        l2, l3 = json.load(a), json.load(b)
    known = {k for k, _ in ORDER}
    extra = sorted({k for d in (l2, l3) for k in d if k not in known | {"total", "packets", "lines"}})
    print(f"{'stage':44} {'L2':>8} {'L3':>8}   (instructions per packet)")

    def per(d, k):
        return d.get(k, 0) / d["packets"]
    for k, label in ORDER + [(k, k) for k in extra]:
        a, b = per(l2, k), per(l3, k)
        if a >= 0.05 or b >= 0.05:
            print(f"{label:44} {a:8.1f} {b:8.1f}")
    t2, t3 = l2["total"] / l2["packets"], l3["total"] / l3["packets"]
    print(f"{'total':44} {t2:8.1f} {t3:8.1f}   ({l2['packets']} / {l3['packets']} packets)")
    print(f"dpdk-testpmd on the same kind of ports (the I/O floor): mac forwarding {tp_mac}, io {tp_io}")
    print("hottest source lines, L2 (instructions per packet):")
    for pos, ir in l2["lines"][:12]:
        print(f"  {pos:40} {ir / l2['packets']:6.1f}")
    print(f"RESULT instr_per_pkt={round(t2)} l3_instr_per_pkt={round(t3)}")


if __name__ == "__main__":
    cmds = {"stages": (stages, 3), "testpmd": (testpmd, 1), "table": (table, 4)}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds or len(sys.argv) != cmds[sys.argv[1]][1] + 2:
        sys.exit(__doc__)
    cmds[sys.argv[1]][0](*sys.argv[2:])
