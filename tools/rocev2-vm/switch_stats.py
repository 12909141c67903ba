#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Read, summarise and assert on pfcswitch counter JSON (the --stats-json file, the
"pfcswitch: stats {...}" exit line, or `pfcctl stats`).

  switch_stats.py show  STATS [--base BASE]          nonzero counters as a short table
  switch_stats.py check STATS [--base BASE] EXPR...  exit 0 iff every EXPR holds
  switch_stats.py get   STATS [--base BASE] PATH     print one (summed) value

STATS may be a JSON file or a log containing a "pfcswitch: stats {...}" line. With --base,
every counter is the difference STATS - BASE (counters taken earlier from the same switch).

EXPR is PATH OP NUMBER with OP one of == != > >= < <=, e.g.
  p0.rx_packets>0                 port counter (port by name, index or *)
  p1.prio4.tx_packets>0           per-priority counter (prio<N>, prio*, lossless, lossy)
  *.lossless.drops_total==0       summed over every port and every lossless priority
  p0.prio3.drops.egress_queue_full==0
  drops_total==0                  top-level counter
A PATH that matches nothing is an error, not a zero: a renamed counter must fail loudly.
"""
import json
import operator
import re
import sys

OPS = {"==": operator.eq, "!=": operator.ne, ">=": operator.ge, "<=": operator.le,
       ">": operator.gt, "<": operator.lt}
EXPR_RE = re.compile(r"^\s*([A-Za-z0-9_.*]+)\s*(==|!=|>=|<=|>|<)\s*(-?[0-9]+)\s*$")


class StatsError(Exception):
    pass


def load(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    # A switch log: take the last "pfcswitch: stats {...}" line.
    for line in reversed(text.splitlines()):
        if line.startswith("pfcswitch: stats "):
            return json.loads(line[len("pfcswitch: stats "):])
    raise StatsError(f"{path}: neither JSON nor a log with a 'pfcswitch: stats' line")


def _ports(stats, sel):
    ports = stats.get("ports")
    if not isinstance(ports, list):
        raise StatsError("no 'ports' list in the counters")
    if sel == "*":
        return ports
    if sel.isdigit() and int(sel) < len(ports):
        return [ports[int(sel)]]
    hit = [p for p in ports if p.get("name") == sel]
    if not hit:
        raise StatsError(f"no port '{sel}' (ports: {[p.get('name') for p in ports]})")
    return hit


def _prios(port, sel):
    prios = port.get("prio", [])
    if sel == "prio*":
        return prios
    if sel == "lossless":
        return [q for q in prios if q.get("lossless")]
    if sel == "lossy":
        return [q for q in prios if not q.get("lossless")]
    n = int(sel[4:])
    if n >= len(prios):
        raise StatsError(f"port {port.get('name')} has no priority {n}")
    return [prios[n]]


def _leaf(obj, keys, path):
    for k in keys:
        if not isinstance(obj, dict) or k not in obj:
            raise StatsError(f"counter '{path}' does not exist (no '{k}')")
        obj = obj[k]
    if isinstance(obj, dict):  # e.g. "drops": sum of all reasons
        return sum(v for v in obj.values() if isinstance(v, (int, float)) and not isinstance(v, bool))
    if isinstance(obj, bool) or not isinstance(obj, (int, float)):
        raise StatsError(f"counter '{path}' is not a number")
    return obj


def value(stats, path):
    parts = path.split(".")
    if len(parts) == 1:
        return _leaf(stats, parts, path)
    total, matched = 0, False
    for port in _ports(stats, parts[0]):
        if re.fullmatch(r"prio(\d+|\*)|lossless|lossy", parts[1]):
            for q in _prios(port, parts[1]):
                total += _leaf(q, parts[2:], path)
                matched = True
        else:
            total += _leaf(port, parts[1:], path)
            matched = True
    if not matched and parts[1] not in ("lossless", "lossy"):
        raise StatsError(f"'{path}' matched nothing")
    return total


def delta_value(stats, base, path):
    v = value(stats, path)
    return v - value(base, path) if base is not None else v


def show(stats, base):
    out = []
    for i, port in enumerate(stats.get("ports", [])):
        name = port.get("name", str(i))
        cols = ["rx_packets", "tx_packets", "arp_rx", "arp_reply_tx", "arp_request_tx",
                "pfc_frames_rx", "pfc_frames_tx", "drops_total"]
        vals = []
        for c in cols:
            if c in port:
                vals.append(f"{c}={delta_value(stats, base, f'{name}.{c}')}")
        out.append(f"  {name}: " + " ".join(vals))
        for q in port.get("prio", []):
            n = q.get("prio", 0)
            fields = []
            for c in ("rx_packets", "tx_packets", "rewrites", "to_lossy_tag", "lossy_fallback",
                      "pfc_xoff_tx", "pfc_xon_tx", "pfc_xoff_rx", "pfc_xon_rx", "paused_ns",
                      "pausing_ns", "buffer_watermark"):
                if c in q:
                    v = delta_value(stats, base, f"{name}.prio{n}.{c}")
                    if v:
                        fields.append(f"{c}={v}")
            for reason in (q.get("drops") or {}):
                v = delta_value(stats, base, f"{name}.prio{n}.drops.{reason}")
                if v:
                    fields.append(f"drop.{reason}={v}")
            if fields:
                kind = "lossless" if q.get("lossless") else "lossy"
                out.append(f"    prio{n} ({kind}): " + " ".join(fields))
    if "drops_total" in stats:
        out.append(f"  drops_total={delta_value(stats, base, 'drops_total')}")
    print("\n".join(out))


def check(stats, base, exprs):
    ok = True
    for e in exprs:
        m = EXPR_RE.match(e)
        if not m:
            print(f"BAD EXPRESSION {e!r} (want PATH OP NUMBER)")
            ok = False
            continue
        path, op, want = m.group(1), m.group(2), int(m.group(3))
        try:
            v = delta_value(stats, base, path)
        except StatsError as err:
            print(f"FAIL {e}: {err}")
            ok = False
            continue
        good = OPS[op](v, want)
        print(f"{'ok  ' if good else 'FAIL'} {path} = {v} (want {op} {want})")
        ok = ok and good
    return ok


def main(argv):
    if len(argv) < 3 or argv[1] not in ("show", "check", "get"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    cmd, args = argv[1], argv[2:]
    base = None
    if "--base" in args:
        i = args.index("--base")
        base = load(args[i + 1])
        args = args[:i] + args[i + 2:]
    try:
        stats = load(args[0])
        if cmd == "show":
            show(stats, base)
            return 0
        if cmd == "get":
            print(delta_value(stats, base, args[1]))
            return 0
        return 0 if check(stats, base, args[1:]) else 1
    except (StatsError, OSError, ValueError, IndexError) as err:
        print(f"switch_stats: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
