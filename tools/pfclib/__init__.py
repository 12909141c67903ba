# SPDX-License-Identifier: BSD-3-Clause
"""pfclib: the project's one Python package, for the scripts around the
programs (tools/, bench/, tests/): reading pfcfabric's results
(fabric_results) and what its plots mark over time (fabric_timeline),
fabric files written from dicts (fabric_files, with PyYAML) and for the
DCFIT experiments (dcfit_fabrics), PFC frames out of a pcapng capture
(pfc_capture), the fabric suite's named checks (checks), and what the cost
benches read from Google Benchmark and callgrind (bench_output). Python 3
standard library only, but for fabric_files (python3-yaml).

Found without path tricks: scripts in tools/ have it beside them; meson's
test suites and the bench scripts (bench/lib.sh) put tools/ (and bench/,
for the experiments the tests rerun small) on PYTHONPATH."""
