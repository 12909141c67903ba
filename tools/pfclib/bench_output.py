# SPDX-License-Identifier: BSD-3-Clause
"""What the cost benches read from the programs they profile
(bench/cost/table_scale.py, bench/fabric/cost.py, bench/cost/cpu_variants.py): a
Google Benchmark result (--benchmark_out JSON, or --benchmark_format=json
on stdout after DPDK's notices) and the instruction total of a callgrind
output file."""
import json
import re
import sys


def benchmark(path, index=-1, what="pipeline_bench"):
    """The index-th benchmark of a --benchmark_out JSON file; exits naming
    what when that run reported an error."""
    with open(path) as f:
        return _checked(json.load(f), index, what)


def benchmark_in_text(text, index=0, what="pipeline_bench"):
    """The same from --benchmark_format=json's stdout, whose JSON follows
    whatever the program printed first."""
    return _checked(json.loads(text[text.index("{"):]), index, what)


def _checked(doc, index, what):
    bm = doc["benchmarks"][index]
    if "error_message" in bm:
        sys.exit(f"{what}: {bm['error_message']}")
    return bm


def callgrind_total(path):
    """The instructions a callgrind output file counted (its totals: line)."""
    with open(path) as f:
        return int(re.search(r"^totals:\s*(\d+)", f.read(), re.M).group(1))
