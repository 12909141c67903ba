#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/pfclib/workload.py (suite 'unit'): the shipped flow-size CDFs load,
their means by hand, inverse sampling on a small CDF, Poisson arrivals that
make the asked load and repeat with the seed, and malformed CDFs refused
with their line.

  workload_test.py BUILD_DIR SOURCE_DIR
"""
import os
import sys
import tempfile

from pfclib.checks import check, finish  # noqa: E402
from pfclib.workload import CdfError, generate, load_cdf, mean_size, sample  # noqa: E402

src = sys.argv[2]
web = load_cdf(os.path.join(src, "configs/workloads/websearch.cdf"))
hdp = load_cdf(os.path.join(src, "configs/workloads/hadoop.cdf"))
# Trapezoids of the web search points: 0.15 x 5000 + 0.05 x 15000 + ... = 1,711,250.
check("web search mean by hand", abs(mean_size(web) - 1_711_250) < 1, str(mean_size(web)))
check("hadoop: mostly small flows (mean 120 KB, median 700 B)",
      abs(mean_size(hdp) - 120_420.75) < 1 and sample(hdp, 0.5) == 700, str(mean_size(hdp)))
small = [(0, 0.0), (100, 0.5), (1000, 1.0)]
check("inverse CDF, interpolated", [sample(small, u) for u in (0.25, 0.5, 0.75)] == [50, 100, 550])
hosts = [f"h{i}" for i in range(8)]
a = generate(hosts, 40e9, 0.3, 50e6, web, seed=3)
b = generate(hosts, 40e9, 0.3, 50e6, web, seed=3)
offered = sum(f[2] for f in a) * 8 / (len(hosts) * 40e9 * 0.05)
check("the same seed, the same flows", a == b and generate(hosts, 40e9, 0.3, 50e6, web, seed=4) != a)
check("the offered load near 30% (within 25% of it, a random draw)", 0.225 < offered < 0.375, f"{offered:.3f}")
check("no flow to its own sender, all in the window",
      all(s != d and 0 <= t < 50e6 for s, d, _, t in a) and a == sorted(a, key=lambda f: (f[3], f[0])))
with tempfile.TemporaryDirectory() as d:
    for text, want in (("0 0\n100 50\n50 100\n", ":3: expected sizes and percents that never decrease"),
                       ("0 0\n100 fifty\n", ":2: expected '<size in bytes> <CDF percent>'"),
                       ("0 0\n100 90\n", "expected at least two points, the last at 100 percent")):
        p = os.path.join(d, "bad.cdf")
        open(p, "w").write(text)
        try:
            load_cdf(p)
            check(f"refused: {want}", False)
        except CdfError as e:
            check(f"refused: {want}", want in str(e), str(e))
finish()
