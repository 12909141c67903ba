# SPDX-License-Identifier: BSD-3-Clause
"""The RESULT lines of the Tagger (ToN 2019) figures on the fabric emulator,
from the runs bench/tagger/*.sh leave in OUT (OUT/without and OUT/with, as
bench/fabric/common.sh's tagger_pair makes them):

  python3 -m tagger.figures FIGURE OUT    FIGURE: fig10 fig10_real fig11 fig11_rc fig12

(bench/ and tools/ on PYTHONPATH, as bench/lib.sh sets it). Each function
prints a line per run and ends with the RESULT line its script documents;
fig10_real writes it to OUT/result.txt instead (the script prints it after
the plot)."""
import csv
import json
import os
import sys

from pfclib.fabric_results import STOPPED_GBPS, drops_sum, flows_by_name, pair, rates, results

RUNS = ("without", "with")
# The routing loop of Fig. 11, both directions.
LOOP = {("T1", "L1"), ("L1", "T1")}


def fig10(out):
    """Fig. 10: the 1-bounce deadlock of blue and green; a deadlock is both
    flows below 0.5 Gb/s over the last half of the run."""
    res = {}
    for run in RUNS:
        d = os.path.join(out, run)
        drops = results(d)["lossless_drops"]
        res[run] = (rates(d), drops)
        print(f"{run:8s} tagger: " + ", ".join(f"{f} {g:.2f} Gb/s" for f, g in sorted(res[run][0].items())) +
              f"; lossless drops {drops}")

    def dead(flow_rates):
        return int(all(g < STOPPED_GBPS for g in flow_rates.values()))
    w, t = res["without"], res["with"]
    print(f"RESULT without_blue_gbps={w[0]['blue']:.2f} without_green_gbps={w[0]['green']:.2f} "
          f"with_blue_gbps={t[0]['blue']:.2f} with_green_gbps={t[0]['green']:.2f} "
          f"deadlock_without={dead(w[0])} deadlock_with={dead(t[0])} lossless_drops={w[1] + t[1]}")


def loop_deadlocks(s):
    """{run: 1 or 0}: flow 2 stopped and both directions of the loop paused
    and idle at the end (s: fabric_results.pair's summaries)."""
    return {run: int(s[run]["rates"]["flow2"] < STOPPED_GBPS and LOOP <= set(s[run]["stuck"])) for run in s}


def fig11(out):
    """Fig. 11: a routing loop T1 <-> L1; flow 1 loops, flow 2 shares T1 -> L1."""
    s = pair(out)
    dead = loop_deadlocks(s)
    w, t = s["without"], s["with"]
    print("A deadlock is a stall, not a loss: flow 1's packets die of TTL expiry (ttl_expired drops);"
          " lossless drops count every other drop of a lossless priority.")
    print(f"RESULT without_flow2_gbps={w['rates']['flow2']:.2f} with_flow2_gbps={t['rates']['flow2']:.2f} "
          f"without_flow1_gbps={w['rates']['flow1']:.2f} with_flow1_gbps={t['rates']['flow1']:.2f} "
          f"ttl_expired_without={w['ttl_expired']} ttl_expired_with={t['ttl_expired']} "
          f"deadlock_without={dead['without']} deadlock_with={dead['with']} "
          f"lossless_drops={w['lossless_drops'] + t['lossless_drops']}")


def fig11_rc(out):
    """Fig. 11 with RC transport: messages completed, go-back-N's work, the
    looping packets Tagger moved to the lossy class and dropped there or by
    TTL."""
    s = pair(out)
    dead = loop_deadlocks(s)
    r = {run: results(os.path.join(out, run)) for run in RUNS}
    fl = {run: flows_by_name(r[run]) for run in r}
    msgs = {run: sum(f["rc"]["messages_done"] for f in fl[run].values()) for run in fl}
    total = sum(-(-f["fct"]["frames"] // 66) for f in fl["with"].values())  # 64 KB = 66 packets of 1000
    t1, t2 = fl["with"]["flow1"], fl["with"]["flow2"]
    for run in fl:
        for n, f in fl[run].items():
            print(f"{run:8s} {n}: messages {f['rc']['messages_done']}, retransmits {f['rc']['retransmits']}, "
                  f"NAKs {f['rc']['naks']}, timeouts {f['rc']['timeouts']}, completed {f['rc']['completed']}, "
                  f"slowdown {f['fct']['slowdown']:.3f}")
    print(f"RESULT messages={total} completed_with={msgs['with']} completed_without={msgs['without']} "
          f"flow1_retransmits_with={t1['rc']['retransmits']} flow1_naks_with={t1['rc']['naks']} "
          f"flow1_timeouts_with={t1['rc']['timeouts']} flow1_slowdown_with={t1['fct']['slowdown']:.2f} "
          f"flow2_slowdown_with={t2['fct']['slowdown']:.3f} deadlock_without={dead['without']} "
          f"deadlock_with={dead['with']} "
          f"lossy_drops_with={drops_sum(r['with'], 'lossy_buffer_full', 'ttl_expired')} "
          f"lossless_drops={r['without']['lossless_drops'] + r['with']['lossless_drops']}")


def fig12(out):
    """Fig. 12: PAUSE propagation from a deadlock over two shuffles."""
    s = pair(out)
    stopped = {run: sum(g < STOPPED_GBPS for g in s[run]["rates"].values()) for run in s}
    w, t = s["without"], s["with"]
    print("A deadlock is a stall, not a loss: lossless drops count every drop of a lossless priority.")
    print(f"RESULT flows=8 stopped_without={stopped['without']} stopped_with={stopped['with']} "
          f"without_total_gbps={sum(w['rates'].values()):.2f} with_total_gbps={sum(t['rates'].values()):.2f} "
          f"with_min_gbps={min(t['rates'].values()):.2f} stuck_links_without={len(w['stuck'])} "
          f"stuck_links_with={len(t['stuck'])} lossless_drops={w['lossless_drops'] + t['lossless_drops']}")


# Fig. 10 with real hosts: the receivers' ToR egresses (real receivers have
# no flow counters in the fabric).
REAL_EDGE = {("T4", "H13"): "blue", ("T1", "H1"): "green"}


def real_flows_csv(d):
    """Writes d/flows.csv (t_ms, flow, gbps) for tools/fabric_plot.py from
    the receivers' ToR egresses in d/ports.csv. Tagger's rules may move a
    flow to another lossless priority on its way: every priority of the
    port is summed."""
    rate = {}
    with open(os.path.join(d, "ports.csv")) as f:
        for r in csv.DictReader(f):
            if (r["switch"], r["port"]) in REAL_EDGE:
                key = (float(r["t_ms"]), REAL_EDGE[(r["switch"], r["port"])])
                rate[key] = rate.get(key, 0.0) + float(r["tx_gbps"])
    with open(os.path.join(d, "flows.csv"), "w") as f:
        f.write("t_ms,flow,gbps\n")
        for (t, flow), g in sorted(rate.items()):
            f.write(f"{t:.6f},{flow},{g:.6f}\n")


def fig10_real(out):
    """Fig. 10 with Linux hosts (bench/tagger/fig10_real.sh): frames each
    receiver counted (OUT/RUN/rx.json, tagger/real_hosts.py); a deadlock is
    both receivers short of what was sent. Writes OUT/RUN/flows.csv and
    OUT/result.txt."""
    res = {}
    for run in RUNS:
        d = os.path.join(out, run)
        real_flows_csv(d)
        with open(os.path.join(d, "rx.json")) as f:
            rx = json.load(f)
        drops = results(d)["lossless_drops"]
        res[run] = (rx, drops)
        print(f"{run:8s} tagger: blue {rx['blue_rx']}/{rx['sent']}, green {rx['green_rx']}/{rx['sent']} frames "
              f"received; lossless drops {drops}")
    w, t = res["without"], res["with"]

    def stall(rx):
        return int(rx["blue_rx"] < rx["sent"] and rx["green_rx"] < rx["sent"])
    with open(os.path.join(out, "result.txt"), "w") as f:
        print(f"RESULT without_blue={w[0]['blue_rx']} without_green={w[0]['green_rx']} "
              f"with_blue={t[0]['blue_rx']} with_green={t[0]['green_rx']} sent={w[0]['sent']} "
              f"deadlock_without={stall(w[0])} deadlock_with={stall(t[0])} lossless_drops={w[1] + t[1]}", file=f)


FIGURES = {"fig10": fig10, "fig10_real": fig10_real, "fig11": fig11, "fig11_rc": fig11_rc, "fig12": fig12}


def main(argv):
    if len(argv) != 3 or argv[1] not in FIGURES:
        sys.exit(f"usage: python3 -m tagger.figures {{{','.join(FIGURES)}}} OUT")
    FIGURES[argv[1]](argv[2])


if __name__ == "__main__":
    main(sys.argv)
