# SPDX-License-Identifier: BSD-3-Clause
"""The table and the RESULT line of bench/switch/perftest_compare.sh, printed in
the guest (its python3, the standard library only) after the rounds:

  perftest_compare_table.py SAMPLES ROUNDS ITERS FAILS

SAMPLES has one "forwarder metric value" line per completed run (none when
the file is missing); IDLE_SLEEP_US and OVS_MAXSLEEP in the environment go
into the header. perftest_compare_plot.py reads SAMPLES with samples()."""
import os
import statistics
import sys

METRICS = ("write_bw", "send_lat", "send_lat_e")


def samples(path):
    """{(forwarder, metric): [values]} of a SAMPLES file, {} when missing."""
    vals = {}
    try:
        with open(path) as f:
            for line in f:
                fwd, metric, v = line.split()
                vals.setdefault((fwd, metric), []).append(float(v))
    except FileNotFoundError:
        pass
    return vals


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "nan"
    return f"{a / b:.3f}"


def table(path, rounds, iters, fails):
    vals = samples(path)
    med = {k: statistics.median(v) for k, v in vals.items()}
    print(f"perftest through three switches, median of {rounds} rounds, -n {iters}, tclass 96;"
          f" pfcswitch and OVS-DPDK native over vhost-user, bridge in the guest ({fails} failed runs);"
          f" pfcswitch idle_sleep_us {os.environ.get('IDLE_SLEEP_US', '?')},"
          f" OVS pmd-maxsleep {os.environ.get('OVS_MAXSLEEP', '?')} us")
    print(f"{'forwarder':<10} {'write_bw Gb/s':>14} {'send_lat us':>12} {'send_lat -e us':>15}   all samples")
    for f in ("bridge", "ovs", "pfcswitch", "testpmd"):
        if not any(k[0] == f for k in vals) and f == "testpmd":
            continue
        cells = [med.get((f, m)) for m in METRICS]
        txt = [f"{c:.4g}" if c is not None else "n/a" for c in cells]
        raw = "; ".join(f"{m}=" + ",".join(f"{x:g}" for x in vals.get((f, m), [])) for m in METRICS)
        print(f"{f:<10} {txt[0]:>14} {txt[1]:>12} {txt[2]:>15}   {raw}")

    def g(f, m):
        return med.get((f, m))
    print(f"send_lat_vs_bridge={ratio(g('pfcswitch', 'send_lat'), g('bridge', 'send_lat'))}"
          f" send_lat_e_vs_ovs={ratio(g('pfcswitch', 'send_lat_e'), g('ovs', 'send_lat_e'))}"
          f" send_lat_e_vs_bridge={ratio(g('pfcswitch', 'send_lat_e'), g('bridge', 'send_lat_e'))}")
    if ("testpmd", "write_bw") in med:
        print(f"io_floor: write_bw_testpmd_vs_bridge={ratio(g('testpmd', 'write_bw'), g('bridge', 'write_bw'))}"
              f" write_bw_vs_testpmd={ratio(g('pfcswitch', 'write_bw'), g('testpmd', 'write_bw'))}")
    print(f"RESULT write_bw_vs_ovs={ratio(g('pfcswitch', 'write_bw'), g('ovs', 'write_bw'))}"
          f" write_bw_vs_bridge={ratio(g('pfcswitch', 'write_bw'), g('bridge', 'write_bw'))}"
          f" send_lat_vs_ovs={ratio(g('pfcswitch', 'send_lat'), g('ovs', 'send_lat'))}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: perftest_compare_table.py SAMPLES ROUNDS ITERS FAILS")
    table(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))
