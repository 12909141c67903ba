# SPDX-License-Identifier: BSD-3-Clause
"""Reads a pfcfabric results directory for the experiment scripts
(bench/tagger/figures.py, bench/hotnets/deadlocks.py, ...) and their
tests (tests/fabric/): flow rates over the end of a run, which links are
paused and idle at the end, the drop counters, and results.json's
per-switch, per-port, per-priority rows and flows by name. `tools/fabric_summary.py
RESULTS_DIR` prints one run's summary. Python 3 standard library only.

A deadlock, as these scripts call it: at the end of the run a set of
(switch, port) egresses is paused by the peer (only lossless priorities
are) and has sent nothing for the last `quiet_bins` bins; a flow "stops" when
its rate at the receiver is below 0.5 Gb/s over the window.
"""
import csv
import json
import os

STOPPED_GBPS = 0.5


def results(d):
    with open(os.path.join(d, "results.json")) as f:
        return json.load(f)


def port_rows(r):
    """(switch, port) for every port of every switch in results r
    (results.json's switches.*.ports[]; port is the port's object)."""
    for sw_name, sw in r["switches"].items():
        for port in sw["ports"]:
            yield sw_name, port


def port_sum(r, *counters):
    """The sum over every port of r of the named port counters."""
    return sum(port[c] for _, port in port_rows(r) for c in counters)


def prio_rows(r):
    """(switch, port name, row) for every priority row of every port of
    every switch in results r (results.json's switches.*.ports[].prio[])."""
    for sw_name, port in port_rows(r):
        for row in port["prio"]:
            yield sw_name, port["name"], row


def prio_sum(r, *counters):
    """The sum over every priority row of r of the named counters."""
    return sum(row[c] for _, _, row in prio_rows(r) for c in counters)


def drops_sum(r, *reasons):
    """The sum over every priority row of r of the drops of the named
    reasons (a row's "drops" object, e.g. "lossy_buffer_full")."""
    return sum(row["drops"][x] for _, _, row in prio_rows(r) for x in reasons)


def flows_by_name(r):
    """results r's flows as {name: flow}."""
    return {f["name"]: f for f in r["flows"]}


def default_from_ms(r):
    """Where rates() starts by default: half way through the run."""
    return r["duration_ns"] / 2e6


def rates(d, from_ms=None):
    """Mean rate (Gb/s) of every flow over bins ending after from_ms (default:
    the second half of the run), at its receiver: flows.csv's bins, frame
    bytes without the FCS (the verdict's rates count wire bits, 24 bytes a
    frame more, over the flow's whole time: docs/reference/behaviour.md)."""
    r = results(d)
    if from_ms is None:
        from_ms = default_from_ms(r)
    acc = {}
    with open(os.path.join(d, "flows.csv")) as f:
        for row in csv.DictReader(f):
            if float(row["t_ms"]) > from_ms:
                acc.setdefault(row["flow"], []).append(float(row["gbps"]))
    return {k: sum(v) / len(v) for k, v in acc.items()}


def stuck_ports(d, quiet_bins=5):
    """(switch, port) egresses paused by their peer at each of the last
    quiet_bins samples that transmitted nothing in those bins: the links a
    deadlock holds."""
    rows = {}
    with open(os.path.join(d, "ports.csv")) as f:
        for row in csv.DictReader(f):
            rows.setdefault((row["switch"], row["port"], row["prio"]), []).append(row)
    stuck = set()
    for (sw, port, _), v in rows.items():
        last = v[-quiet_bins:]
        if len(last) == quiet_bins and all(r["paused"] == "1" and float(r["tx_gbps"]) == 0 for r in last):
            stuck.add((sw, port))
    return stuck


def summary(d, from_ms=None):
    r = results(d)
    return {
        "rates": rates(d, from_ms),
        "from_ms": default_from_ms(r) if from_ms is None else from_ms,
        "stuck": sorted(stuck_ports(d)),
        "lossless_drops": r["lossless_drops"],
        "ttl_expired": r["ttl_expired_drops"],
        "flows": flows_by_name(r),
    }


def describe(name, s):
    """One line for a run: rates, stuck links, drop counters. The label says
    what the rates are, since the verdict's differ (wire bits, whole flow)."""
    rs = ", ".join(f"{f} {g:.2f}" for f, g in sorted(s["rates"].items()))
    stuck = " ".join(f"{a}->{b}" for a, b in s["stuck"]) or "none"
    return (f"{name}: received Gb/s (frames, bins after {s['from_ms']:g} ms) {rs}; "
            f"paused and idle at the end: {stuck}; "
            f"lossless drops {s['lossless_drops']}, ttl_expired drops {s['ttl_expired']}")


def pair(out):
    """Summaries of OUT/without and OUT/with (bench/fabric/common.sh's
    tagger_pair), each printed on one line."""
    s = {run: summary(os.path.join(out, run)) for run in ("without", "with")}
    for run in s:
        print(describe(f"{run:8s} tagger", s[run]))
    return s
