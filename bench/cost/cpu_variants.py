# SPDX-License-Identifier: BSD-3-Clause
"""The numbers of bench/cost/cpu_variants.sh:

  python3 -m cost.cpu_variants mpps < PIPELINE_BENCH_JSON_STDOUT
      the switch's Mpps of one pipeline_bench run (its first benchmark)
  python3 -m cost.cpu_variants result "NATIVE_MPPS..." "BASELINE_MPPS..."
      the RESULT line: medians of each build's runs and of their ratios

(bench/ and tools/ on PYTHONPATH, as bench/lib.sh sets it)."""
import statistics
import sys

from pfclib.bench_output import benchmark_in_text


def result(native, base):
    r = statistics.median(x / y for x, y in zip(native, base))
    print(f"RESULT native_mpps={statistics.median(native):.2f} baseline_mpps={statistics.median(base):.2f} "
          f"ratio={r:.3f}")


def main(argv):
    if len(argv) == 2 and argv[1] == "mpps":
        print(benchmark_in_text(sys.stdin.read())["switch_Mpps"])
    elif len(argv) == 4 and argv[1] == "result":
        result([float(x) for x in argv[2].split()], [float(x) for x in argv[3].split()])
    else:
        sys.exit('usage: python3 -m cost.cpu_variants mpps < JSON | result "NATIVE..." "BASELINE..."')


if __name__ == "__main__":
    main(sys.argv)
