# SPDX-License-Identifier: BSD-3-Clause
"""Workloads for the fabric emulator: flows drawn as the HPCC work's
experiments draw them. Each host starts flows as a Poisson process whose
rate makes its link `load` busy on average (rate = load x link / mean flow
size), to a destination picked uniformly among the other hosts, of a size
drawn from a flow-size CDF (configs/workloads/*.cdf: "<bytes> <percent>"
lines, piecewise linear). A seed fixes everything, so a workload repeats.
Python 3 standard library only.
"""
import random


class CdfError(Exception):
    pass


def load_cdf(path):
    """[(size, fraction)] from a CDF file, checked: sizes and fractions
    never decrease, the last fraction is 1."""
    pts = []
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            s = line.split("#")[0].split()
            if not s:
                continue
            try:
                size, pct = float(s[0]), float(s[1])
            except (ValueError, IndexError):
                raise CdfError(f"{path}:{ln}: expected '<size in bytes> <CDF percent>' (got {line.strip()})")
            if pts and (size < pts[-1][0] or pct < pts[-1][1] * 100):
                raise CdfError(f"{path}:{ln}: expected sizes and percents that never decrease")
            pts.append((size, pct / 100))
    if len(pts) < 2 or abs(pts[-1][1] - 1) > 1e-9:
        raise CdfError(f"{path}: expected at least two points, the last at 100 percent")
    return pts


def mean_size(cdf):
    """The mean of the piecewise-linear distribution (bytes)."""
    return sum((p1 - p0) * (s0 + s1) / 2 for (s0, p0), (s1, p1) in zip(cdf, cdf[1:]))


def sample(cdf, u):
    """The size at quantile u in [0, 1), interpolated; at least 1 byte."""
    for (s0, p0), (s1, p1) in zip(cdf, cdf[1:]):
        if u <= p1 and p1 > p0:
            return max(1, round(s0 + (s1 - s0) * (u - p0) / (p1 - p0)))
    return max(1, round(cdf[-1][0]))


def generate(hosts, link_bps, load, window_ns, cdf, seed, min_start_ns=0):
    """[(src, dst, size, start_ns)] sorted by start: every host's arrivals
    in [min_start_ns, min_start_ns + window_ns)."""
    rng = random.Random(seed)
    rate_per_ns = load * link_bps / (8 * mean_size(cdf)) / 1e9
    flows = []
    for h in hosts:
        t = min_start_ns + rng.expovariate(rate_per_ns)
        while t < min_start_ns + window_ns:
            dst = rng.choice([x for x in hosts if x != h])
            flows.append((h, dst, sample(cdf, rng.random()), round(t)))
            t += rng.expovariate(rate_per_ns)
    flows.sort(key=lambda f: (f[3], f[0]))
    return flows
