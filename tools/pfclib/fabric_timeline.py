# SPDX-License-Identifier: BSD-3-Clause
"""What a pfcfabric run's plots mark over time (tools/fabric_plot.py, and
its test tests/fabric/plot_test.py): when the timeline's events happened,
what the switches reported (the pause-storm watchdog, DCFIT), the frames
lost in each sample bin, and which flows' rate series are the same (so the
plot can say so instead of drawing one over the other). Python 3 standard
library only.

Sources, all in the results directory:
  results.json "events": "<t> ms: <what>" for each event of the fabric
    file's `events` as it was applied (link down/up, route, flow start/stop,
    host misbehaviour, rules reload), in order;
  results.json "pfcwd_events", "dcfit_events": {kind, switch, t_ns, ...};
  drops.csv: t_ms,lossless,lossy,link_down, frames lost in the bin ending
    at t_ms over the whole fabric (link_down empty on the real clock).
"""
import csv
import json
import os
import re
from collections import namedtuple

# t_ms: where the line goes; label: a few words; source: "timeline"
# (the fabric file's events), "pfcwd" or "dcfit" (what switches reported).
Marker = namedtuple("Marker", "t_ms label source")

_EVENT = re.compile(r"^(\d+(?:\.\d*)?) ms: (.*)$")


def _results(d):
    with open(os.path.join(d, "results.json")) as f:
        return json.load(f)


def timeline_events(d):
    """[(t_ms, text)] of the timeline events the run applied, in order."""
    out = []
    for line in _results(d).get("events", []):
        m = _EVENT.match(line)
        if m:
            out.append((float(m.group(1)), m.group(2)))
    return out


def short_label(text):
    """A timeline event's text in a few words: "link A-H2 down" stays,
    "route at T2: 10.0.0.4/30 via L1" becomes "route T2 via L1",
    "rules at L1 from r.yaml" becomes "rules L1", "host H3 storm on
    priorities 1" becomes "H3 storm"."""
    failed = " FAILED" if " FAILED: " in text else ""
    text = text.split(" FAILED: ")[0]
    m = re.match(r"route at (\S+): \S+ via (\S+)$", text)
    if m:
        return f"route {m.group(1)} via {m.group(2)}{failed}"
    m = re.match(r"rules at (\S+) from ", text)
    if m:
        return f"rules {m.group(1)}{failed}"
    m = re.match(r"host (\S+) (.*)$", text)
    if m:
        what = m.group(2)
        words = []
        if "storm off" in what:
            words.append("storm off")
        elif "storm on" in what:
            words.append("storm")
        if "ignores pause" in what:
            words.append("ignores pause")
        if "honours pause" in what:
            words.append("honours pause")
        return f"{m.group(1)} {', '.join(words) or what}{failed}"
    return text + failed


def _merge(markers, merge_ms):
    """One marker per burst of one source: events at one instant (the routes
    of a fabric's initial state), or within merge_ms of the burst's first
    (a watchdog restoring ports one after another), share the first one's
    line, labelled with its label and how many more."""
    out = []
    for source in sorted({m.source for m in markers}):
        group = []
        for mk in sorted((m for m in markers if m.source == source), key=lambda m: m.t_ms):
            if group and mk.t_ms - group[0].t_ms > merge_ms + 1e-9:
                out.append(_label(group))
                group = []
            group.append(mk)
        if group:
            out.append(_label(group))
    return sorted(out, key=lambda m: (m.t_ms, m.source))


def _label(group):
    labels = [m.label for m in group]
    distinct = list(dict.fromkeys(labels))
    if len(distinct) == 1:
        label = distinct[0] + (f" x{len(labels)}" if len(labels) > 1 else "")
    else:
        label = f"{distinct[0]} +{len(labels) - 1}"
    return Marker(group[0].t_ms, label, group[0].source)


def event_markers(d, switch_events=True, merge_ms=0.0):
    """The markers of a run, by time: every timeline event, and (with
    switch_events) each watchdog storm and restore, and the first DCFIT
    event of each kind (there may be thousands); events of one source less
    than merge_ms apart share a marker (see _merge)."""
    r = _results(d)
    marks = [Marker(t, short_label(text), "timeline") for t, text in timeline_events(d)]
    if switch_events:
        for e in r.get("pfcwd_events", []):
            marks.append(Marker(e["t_ns"] / 1e6, f"wd {e['kind']} {e['switch']}:{e['port']}", "pfcwd"))
        first = {}
        for e in r.get("dcfit_events", []):
            if e["kind"] not in first or e["t_ns"] < first[e["kind"]]["t_ns"]:
                first[e["kind"]] = e
        for kind, e in first.items():
            marks.append(Marker(e["t_ns"] / 1e6, f"dcfit {kind} {e['switch']}", "dcfit"))
    return _merge(marks, merge_ms)


def drops(d):
    """Frames lost per sample bin over the whole fabric: {"t_ms": [...],
    "lossless": [...], "lossy": [...], "link_down": [...] or None (the real
    clock does not sample its links)}; None for results without drops.csv
    (pfcfabric before it wrote one)."""
    path = os.path.join(d, "drops.csv")
    if not os.path.exists(path):
        return None
    out = {"t_ms": [], "lossless": [], "lossy": [], "link_down": []}
    with open(path) as f:
        for row in csv.DictReader(f):
            out["t_ms"].append(float(row["t_ms"]))
            out["lossless"].append(int(row["lossless"]))
            out["lossy"].append(int(row["lossy"]))
            out["link_down"].append(int(row["link_down"]) if row["link_down"] != "" else None)
    if any(x is None for x in out["link_down"]):
        out["link_down"] = None
    return out


def same_series(series):
    """{name: the first name, in sorted order, whose series is equal} for
    every series that equals an earlier one; series maps name -> (t, y)."""
    seen = {}
    out = {}
    for name in sorted(series):
        key = (tuple(series[name][0]), tuple(series[name][1]))
        if key in seen:
            out[name] = seen[key]
        else:
            seen[key] = name
    return out
