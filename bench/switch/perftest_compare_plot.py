# SPDX-License-Identifier: BSD-3-Clause
"""The PNG of bench/switch/perftest_compare.sh, drawn on the host after the guest
is done (matplotlib under TCG would take longer than a round):
perftest_compare_plot.py SAMPLES PNG. SAMPLES has one "forwarder metric
value" line per completed run. One panel per metric; a bar is a
forwarder's median, the dots its rounds (samples() of
perftest_compare_table.py, beside it). Latency is on a log scale: the
forwarders differ by orders of magnitude there."""
import statistics
import sys

import matplotlib

from perftest_compare_table import samples

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ORDER = ("bridge", "pfcswitch", "ovs", "testpmd")
COLOUR = {"bridge": "tab:gray", "pfcswitch": "tab:blue", "ovs": "tab:orange", "testpmd": "tab:green"}
PANELS = (("write_bw", "ib_write_bw -s 65536, BW average (Gb/s)\nhigher is better", False),
          ("send_lat", "ib_send_lat -s 64, t_typical (us)\nlower is better", True),
          ("send_lat_e", "ib_send_lat -s 64 -e, t_typical (us)\nlower is better", True))


def main(samples_path, png):
    vals = {}
    for (fwd, metric), xs in samples(samples_path).items():
        vals.setdefault(metric, {})[fwd] = xs
    fig, axes = plt.subplots(1, len(PANELS), figsize=(12, 4.2))
    for ax, (metric, label, log) in zip(axes, PANELS):
        fwds = [f for f in ORDER if f in vals.get(metric, {})]
        for i, f in enumerate(fwds):
            xs = vals[metric][f]
            ax.bar(i, statistics.median(xs), color=COLOUR[f], alpha=0.7)
            ax.scatter([i] * len(xs), xs, color="black", s=12, zorder=3)
        ax.set_xticks(range(len(fwds)), fwds)
        ax.set_ylabel(label, fontsize=8)
        if log:
            ax.set_yscale("log")
    fig.suptitle("perftest between two soft-RoCE hosts of one TCG guest: pfcswitch and OVS-DPDK on the host "
                 "(vhost-user), a bridge in the guest, testpmd io = I/O floor (bar: median, dots: rounds)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: perftest_compare_plot.py SAMPLES PNG")
    main(sys.argv[1], sys.argv[2])
