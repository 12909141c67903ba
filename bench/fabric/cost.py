# SPDX-License-Identifier: BSD-3-Clause
"""The counts and the RESULT line of bench/fabric/cost.sh:

  python3 -m fabric.cost hops RESULTS_DIR
      switch-hops of a pfcfabric run: the data packets its switches
      transmitted (every priority's tx_packets)
  python3 -m fabric.cost tx BENCHMARK_JSON
      packets a pipeline_bench run transmitted (its last benchmark's tx_total)
  python3 -m fabric.cost summary RESULTS_DIR BENCHMARK_JSON EMU_TOTAL EMU_SW PIPE_TOTAL HOPS PKTS
                                 LIGHT_TOTAL LIGHT_PKTS
      instructions per switch-hop and per pipeline packet (callgrind
      totals), and the RESULT line

(bench/ and tools/ on PYTHONPATH, as bench/lib.sh sets it)."""
import sys

from pfclib.bench_output import benchmark
from pfclib.fabric_results import prio_sum, results


def hops(d):
    return prio_sum(results(d), "tx_packets")


def summary(d, bm_json, emu_total, emu_sw, pipe_total, hop_count, pkts, light_total, light_pkts):
    r = results(d)
    rounds = r["switch_rounds"]
    b = benchmark(bm_json)
    emu, pipe = emu_total / hop_count, pipe_total / pkts
    print(f"emulator: {len(r['switches'])} switches, {len(r['hosts'])} hosts, {hop_count} switch-hops in {rounds} "
          f"switch rounds ({hop_count / max(rounds, 1):.2f} hops a round), lossless drops {r['lossless_drops']}")
    print(f"  instructions per switch-hop: {emu:.0f} in all, of which switch rounds {emu_sw / hop_count:.0f}, "
          f"links, hosts, driver and recorder {(emu_total - emu_sw) / hop_count:.0f}")
    light = light_total / light_pkts
    print(f"pipeline: {pkts} packets, {b['pkts_per_round']:.1f} a round: {pipe:.0f} instructions per packet")
    print(f"pipeline, one packet per port a round: {light_pkts} packets: {light:.0f} instructions per packet")
    print(f"RESULT emu_instr_per_hop={emu:.0f} pipeline_instr_per_pkt={pipe:.0f} emu_over_pipeline={emu / pipe:.2f} "
          f"pipeline_light_instr_per_pkt={light:.0f} emu_over_light_pipeline={emu / light:.2f}")


def main(argv):
    if len(argv) == 3 and argv[1] == "hops":
        print(hops(argv[2]))
    elif len(argv) == 3 and argv[1] == "tx":
        print(int(benchmark(argv[2])["tx_total"]))
    elif len(argv) == 11 and argv[1] == "summary":
        summary(argv[2], argv[3], *map(int, argv[4:11]))
    else:
        sys.exit("usage: python3 -m fabric.cost hops RESULTS_DIR | tx BENCHMARK_JSON | summary RESULTS_DIR "
                 "BENCHMARK_JSON EMU_TOTAL EMU_SW PIPE_TOTAL HOPS PKTS LIGHT_TOTAL LIGHT_PKTS")


if __name__ == "__main__":
    main(sys.argv)
