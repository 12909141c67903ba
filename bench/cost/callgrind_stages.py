#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Splits a callgrind profile of pfcswitch's worker round into pipeline
stages (used by bench/cost/table.sh).

Input: a callgrind.out file written with --toggle-collect on the worker
round, --compress-strings=no --compress-pos=no, of a binary built with -g
(so inlined code carries its own source file). Output: one JSON object
{stage: instructions} on stdout, plus "total" (callgrind's own summary) and
"lines": the 15 source lines (file:line, inlined code at its own line, a
call out of the binary at its call site) that cost the most.

How an instruction is assigned: self cost in the benchmark binary goes by
the source file the instruction came from (inlined code included: the
parser, tag map, route and rewrite tables, buffer accountant, scheduler and
PFC each live in their own files), else by the function it was compiled
into plus the file (a DPDK ring or ethdev inline in the ingress stage is the
egress enqueue, in the worker round it is rx, ...). A call out of the binary
(the net_ring PMD's rx/tx, memcpy) counts as the call site's stage with the
callee's inclusive cost, so every instruction lands at one place in our
code. The sum over stages must equal callgrind's total, which is checked."""
import collections
import json
import re
import sys

# (stage, source-file pattern): first match wins.
FILE_STAGES = [
    # ipv4_checksum.h is the inline 20-byte checksum verify of receipt.
    ("parse", r"dataplane/net/parser\.|dataplane/net/ipv4_checksum\.h"),
    ("classify", r"dataplane/tables/tag_map\.h"),
    ("route", r"dataplane/tables/(route_table|neighbor_table|l2_table)\.|dataplane/switch/tables_snapshot\."),
    ("rewrite", r"dataplane/tables/rewrite_table\.|dataplane/net/(ipv4_edit|vlan_edit)\."),
    ("schedule", r"dataplane/sched/"),
    # The PFC and watchdog stages' glue: under LTO it is inlined into the
    # worker round, where only its file tells it apart.
    ("pfc", r"dataplane/pause/|dataplane/stages/(pfc_stage|pfcwd_stage)\.cc"),
    ("counters", r"dataplane/switch/stats\.h"),
]
# (stage, function-name pattern) for code in files that say nothing (std
# or DPDK headers, the stages' glue): first match wins.
FN_STAGES = [
    ("pfc", r"Pfc|PauseTimer"),
    ("admit", r"IngressBatch"),
    ("release", r"ReleaseBatch"),
    ("schedule", r"EgressScheduler"),
    ("route", r"L2Lookup|RouteTable|NeighborTable"),
    ("parse", r"ParseFrame|Parser"),
    ("rewrite", r"RewriteTable"),
    ("tx", r"FlushStash$|::Stash$|DataSent$"),
]
IO = r"dataplane/switch/port_io\.h|rte_ethdev"


def name_of(fn):
    """The qualified name without the parameter list (which can name other
    classes: FlushStash(..., ReleaseBatch&))."""
    return fn.replace("(anonymous namespace)", "anon").split("(")[0]


def stage_of(fn, fl):
    """The stage of code from source file `fl` compiled into function `fn`,
    or None when only its callers can tell (a shared helper)."""
    fn = name_of(fn)
    if "ChecksumOk" in fn:
        return "parse"   # the IPv4 header checksum verified on receipt
    if re.search(r"dataplane/buffer/accountant\.", fl):
        # Admission is charged at ingress; release after tx (or undoing a
        # failed enqueue). The accountant's shared update goes by caller.
        if re.search(r"IngressBurst|IngressBatch", fn):
            return "admit"
        if re.search(r"ReleaseBatch|EgressPort|FlushStash|DataSent", fn):
            return "release"
        return None
    for stage, pat in FILE_STAGES:
        if re.search(pat, fl):
            return stage
    if "IngressBurst" in fn:
        # The DPDK ring inlined here is the enqueue into egress queues; the
        # rest is the per-packet glue (loop, drops, metadata, grouping).
        return "enqueue" if re.search(r"rte_ring", fl) else "ingress loop"
    if "EgressPort" in fn:
        # The egress queue dequeue and the loop around the scheduler, but
        # the inlined tx burst is tx.
        return "tx" if re.search(IO, fl) else "schedule"
    if re.search(r"WorkerRound$|::Round$", fn):
        return "rx" if re.search(IO, fl) else "loop"
    for stage, pat in FN_STAGES:
        if re.search(pat, fn):
            return stage
    return None


def main(path, binary):
    self_cost = collections.Counter()   # (fn, file) -> instructions
    calls_in = []      # (caller fn, call-site file, callee fn, inclusive cost) inside the binary
    calls_out = []     # (fn, call-site file, inclusive cost) of calls leaving the binary
    by_line = collections.Counter()   # (file, line) -> instructions, for the hot-line list
    out_line = []
    total = None
    fl = fi = fn = ob = ""
    cob = cfn = ""     # callee named for the next calls= line
    call = None        # (callee object, callee fn) of the call whose cost line is next
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line[0].isdigit() or line[0] in "+-*":
                parts = line.split()
                ir = int(parts[1]) if len(parts) > 1 else 0
                if call is not None:
                    if binary in ob:
                        if binary in call[0]:
                            calls_in.append((fn, fi or fl, call[1], ir))
                        else:
                            calls_out.append((fn, fi or fl, ir))
                            out_line.append((fn, ((fi or fl).split("/")[-1], parts[0]), ir))
                    call = None
                elif binary in ob:
                    self_cost[(fn, fi or fl)] += ir
                    by_line[((fi or fl).split("/")[-1], parts[0])] += ir
                continue
            if line.startswith(("summary:", "totals:")):
                total = int(line.split()[1])
                continue
            key, _, val = line.partition("=")
            if key == "ob":
                ob = val
            elif key == "fl":
                fl, fi = val, ""
            elif key in ("fi", "fe"):
                fi = val
            elif key == "fn":
                fn, fi = val, ""
            elif key == "cob":
                cob = val
            elif key == "cfn":
                cfn = val
            elif key == "calls":
                # Without cob= the callee is in the caller's object.
                call, cob = (cob or ob, cfn), ""

    ran = {fn for fn, _ in self_cost}
    callers = collections.defaultdict(list)
    for caller, site, callee, ir in calls_in:
        if caller in ran:
            callers[callee].append((caller, site, ir))

    memo = {}

    def shares(fn, fl, depth=0):
        """{stage: fraction} for code of `fn` from file `fl`: its own stage,
        or its callers' stages weighted by what their calls cost."""
        st = stage_of(fn, fl)
        if st is not None:
            return {st: 1.0}
        if fn in memo:
            return memo[fn]
        memo[fn] = {"other: " + name_of(fn): 1.0}   # cuts recursion
        up = callers.get(fn, [])
        weight = sum(ir for _, _, ir in up)
        if weight and depth < 8:
            out = collections.Counter()
            for caller, site, ir in up:
                for s2, frac in shares(caller, site, depth + 1).items():
                    out[s2] += frac * ir / weight
            memo[fn] = dict(out)
        return memo[fn]

    cost = collections.Counter()
    for (fn, fl), ir in self_cost.items():
        for st, frac in shares(fn, fl).items():
            cost[st] += ir * frac
    # A call out of the binary (the PMD's rx/tx, memcpy) counts at its call
    # site. The harness around the round (main, the benchmark library
    # calling back into it) has such calls carrying the round's cost too:
    # only calls made by code that ran inside the round count.
    for fn, fl, ir in calls_out:
        if fn in ran:
            for st, frac in shares(fn, fl).items():
                cost[st] += ir * frac
    for fn, pos, ir in out_line:
        if fn in ran:
            by_line[pos] += ir
    cost = {k: round(v) for k, v in cost.items()}
    cost["total"] = total
    cost["lines"] = [[f"{f}:{n}", ir] for (f, n), ir in by_line.most_common(15)]
    json.dump(cost, sys.stdout)
    print()
    counted = sum(v for k, v in cost.items() if k not in ("total", "lines"))
    if total is None or abs(counted - total) > len(cost):
        sys.exit(f"callgrind_stages: stages sum to {counted}, callgrind's total is {total}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
