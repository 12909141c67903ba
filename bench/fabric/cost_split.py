#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Splits a callgrind profile of pfcfabric's virtual-time run into what an
emulated switch-hop costs (used by bench/fabric/cost.sh).

Usage: cost_split.py CALLGRIND_OUT N
Prints one row per part: instructions per unit (N switch-hops, or N packets
of pipeline_bench) and share, then the total, which must equal callgrind's
(checked).

Every function's self cost (inlined code included: it counts where it was
compiled into) goes to a part by the function's name. A shared helper that
names no part (rte_pktmbuf_free, memset, a checksum) is split over its
callers in proportion to what each call edge cost, and goes to the callers'
parts; so every instruction lands in one part. Works on a build without
debug info (names only) or with it (a function's entries per source file
are summed)."""
import collections
import re
import subprocess
import sys

# (part, function-name pattern): first match wins. Names are matched without
# their parameter lists.
PARTS = [
    # The switch's stages as the standalone switch runs them, per burst.
    ("switch pipeline (ingress, egress stages)",
     r"IngressBurst|IngressBatch|EgressPort$|FlushStash|::Stash$|ReleaseBatch|BufferAccountant|"
     r"StaticNeighbors|RouteTable|NeighborTable|EgressScheduler|Ipv4DecrementTtl|Parse|TagMap|"
     r"RewriteTable|IsLocalAddress|DiscardQueue|LocalDeliver"),
    # What WorkerRound adds around the stages for every port it looks at.
    ("switch round bookkeeping (port scans, PFC, pause timers, watchdog, deadlines)",
     r"anon::Round$|WorkerRound|EgressRound|NothingQueued|Pfc|PauseTimer|Dcfit(Round|IgnoredPause)|"
     r"CurrentTables"),
    ("emulated link: tx (FIFO, serialisation, onto the wire)",
     r"EmuPort::Tx|EmuTx|EmuPort::Pump|EmuPort::ApplyRequest|LinkModel::(Send|SendControl|CanSend|"
     r"Start|Pump|SetUp)|WireTimeNs|__udivti3"),
    ("emulated link: rx (landed frames into the switch)", r"EmuPort::Rx|EmuRx|EmuPort::Refill"),
    ("emulated link: poll (next start, arrival, FIFO)",
     r"EmuPort::Poll|LinkModel::(NextStartNs|AcceptNs)"),
    ("emulated hosts (frames built, received, paced)",
     r"Host::Round|HostModel|ReadFlowHeader|BuildPfcFrame|ParseMacControl"),
    ("virtual clock and calendar", r"VirtualClock::Run$|DueQueue|__introsort|__insertion_sort"),
    ("recorder and reports", r"Recorder|DcfitReport"),
]
HELPER = "(shared helpers, by caller)"


def name_of(fn):
    fn = fn.replace("(anonymous namespace)", "anon")
    fn = re.sub(r"\[clone [^\]]*\]", "", fn).strip()
    # Drop the parameter list (the last balanced (...) group) and return type.
    depth, cut = 0, len(fn)
    for i in range(len(fn) - 1, -1, -1):
        if fn[i] == ")":
            depth += 1
        elif fn[i] == "(":
            depth -= 1
            if depth == 0:
                cut = i
                break
    return fn[:cut].strip()


def part_of(fn):
    n = name_of(fn)
    for part, pat in PARTS:
        if re.search(pat, n):
            return part
    return None


# cost (share) mark name [(calls x)] [object]; with debug info the object can
# be missing and the call count carries thousands separators.
LINE = re.compile(
    r"^\s*([\d,]+)\s+\([^)]*\)\s+([<*>])?\s*(\S.*?)(?:\s+\(([\d,]+)x\))?(?:\s+\[[^\]]*\])?\s*$")


def parse_tree(path):
    """{fn: (self, [(caller, edge_cost)])} from callgrind_annotate --tree=caller."""
    cmd = ["callgrind_annotate", "--tree=caller", "--threshold=100", "--auto=no", path]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    funcs = {}
    callers = []
    for line in out.splitlines():
        if not line.strip():
            callers = []
            continue
        m = LINE.match(line)
        if not m:
            continue
        cost = int(m.group(1).replace(",", ""))
        mark, fn = m.group(2), m.group(3)
        fn = re.sub(r"^[^:]*:", "", fn, count=1) if fn.startswith(("???:", ".", "/")) else fn
        if mark == "<":
            callers.append((fn, cost))
        elif mark == "*":
            # With debug info a function comes once per source file its code
            # was inlined from: the entries add up.
            c0, k0 = funcs.get(fn, (0, []))
            funcs[fn] = (c0 + cost, k0 + callers)
            callers = []
    return funcs


def split(funcs):
    parts = collections.Counter()
    memo = {}

    def shares(fn, seen):
        """{part: fraction} for fn's self cost."""
        if fn in memo:
            return memo[fn]
        p = part_of(fn)
        if p is not None:
            return {p: 1.0}
        callers = funcs.get(fn, (0, []))[1]
        total = sum(c for f, c in callers if f not in seen)
        if total == 0:
            return {HELPER: 1.0}
        res = collections.Counter()
        for f, c in callers:
            if f in seen:
                continue
            for q, x in shares(f, seen | {fn}).items():
                res[q] += x * c / total
        memo[fn] = res
        return res

    for fn, (self_cost, _) in funcs.items():
        for q, x in shares(fn, frozenset([fn])).items():
            parts[q] += self_cost * x
    return parts


def main():
    path, n = sys.argv[1], int(sys.argv[2])
    total = subprocess.run(["callgrind_annotate", path], check=True, capture_output=True,
                           text=True).stdout
    total = int(re.search(r"^\s*([\d,]+) .*PROGRAM TOTALS", total, re.M).group(1).replace(",", ""))
    parts = split(parse_tree(path))
    got = sum(parts.values())
    if abs(got - total) > total * 0.001:
        sys.exit(f"fabric_cost_split: parts sum to {got:.0f}, callgrind's total is {total}")
    order = [p for p, _ in PARTS] + [HELPER]
    for p in order:
        if parts.get(p, 0) == 0:
            continue
        print(f"  {parts[p] / n:7.0f}  {100 * parts[p] / total:5.1f}%  {p}")
    print(f"  {total / n:7.0f}  100.0%  in all")


if __name__ == "__main__":
    main()
