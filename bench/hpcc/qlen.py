# SPDX-License-Identifier: BSD-3-Clause
"""Queue lengths on both sides (bench/hpcc/vs_simulator.py with QLEN_MON=1):
the simulator's monitor (scratch/third.cc monitor_buffer: every switch
port's egress bytes, all queues, every 100 ns from QLEN_MON_START to
QLEN_MON_END inclusive, counted per 1,000-byte bucket, dumped cumulative at
each multiple of 100 ms) and pfcfabric's monitor.qlen (qlen.csv: the same
samples by switch, port and bucket). Both sides watch the same 100 ms from
the traffic's start; the statistics are over the traffic's part of it: the
instants after `window_end` (when every flow was done on both sides, every
queue empty) are taken out of the zero bucket on both sides alike."""
import csv

MON_SPAN_NS = 100_000_000   # QLEN_MON_END - QLEN_MON_START: one dump at the end
INTERVAL_NS = 100


def config_lines(lines, start_ns):
    """The case's config.txt lines with the monitor spanning MON_SPAN_NS from start_ns."""
    out = []
    for line in lines:
        w = line.split()
        if w and w[0] == "QLEN_MON_START":
            line = f"QLEN_MON_START {start_ns}\n"
        elif w and w[0] == "QLEN_MON_END":
            line = f"QLEN_MON_END {start_ns + MON_SPAN_NS}\n"
        out.append(line)
    return out


def last_dump(path):
    """The simulator monitor's last dump: rows [node, ifindex, samples at
    0 KB, at 1 KB, ...], one per switch port."""
    blocks, cur = [], None
    for line in open(path):
        if line.startswith("time:"):
            cur = []
            blocks.append(cur)
        elif cur is not None and line.strip():
            cur.append([int(x) for x in line.split()])
    return blocks[-1] if blocks else []


def sim_hist(path):
    """{kb: samples} over every switch port, from the last dump; and the ports."""
    hist, ports = {}, 0
    for row in last_dump(path):
        ports += 1
        for kb, n in enumerate(row[2:]):
            if n:
                hist[kb] = hist.get(kb, 0) + n
    return hist, ports


def emu_hist(path):
    """The same from pfcfabric's qlen.csv."""
    hist, ports = {}, set()
    for r in csv.DictReader(open(path)):
        ports.add((r["switch"], r["port"]))
        kb = int(r["kb"])
        hist[kb] = hist.get(kb, 0) + int(r["samples"])
    return hist, len(ports)


def window_stats(hist, ports, start_ns, window_end_ns):
    """Percentiles (KB) of the port-samples in [start_ns, window_end_ns]:
    the later instants (queues empty) out of the zero bucket."""
    if ports == 0:
        return None   # no dump (the run stopped before the monitor's end)
    later = (start_ns + MON_SPAN_NS - window_end_ns) // INTERVAL_NS
    h = dict(hist)
    if later > 0:
        if h.get(0, 0) < later * ports:
            return None   # some queue was not empty after the window: no statistic
        h[0] -= later * ports
    total = sum(h.values())
    out = {"samples": total, "ports": ports, "window_ns": window_end_ns - start_ns}
    for name, q in (("p50", 0.5), ("p95", 0.95), ("p99", 0.99), ("p999", 0.999)):
        acc = 0
        for kb in sorted(h):
            acc += h[kb]
            if acc >= q * total:
                out[f"{name}_kb"] = kb
                break
    out["mean_kb"] = sum(kb * n for kb, n in h.items()) / total if total else 0
    return out


def sim_port_integrals(path):
    """{(node, ifindex): KB x ms} of each switch port's egress queue over the
    monitor's span, from the simulator's last dump."""
    out = {}
    for row in last_dump(path):
        out[(row[0], row[1])] = sum(kb * n for kb, n in enumerate(row[2:])) * INTERVAL_NS / 1e6
    return out


def emu_port_integrals(path):
    """The same from pfcfabric's qlen.csv, by (switch, port name)."""
    out = {}
    for r in csv.DictReader(open(path)):
        k = (r["switch"], r["port"])
        out[k] = out.get(k, 0.0) + int(r["kb"]) * int(r["samples"]) * INTERVAL_NS / 1e6
    return out
