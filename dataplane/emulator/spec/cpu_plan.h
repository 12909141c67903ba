// SPDX-License-Identifier: BSD-3-Clause
// Which CPUs pfcfabric's lcores run on when it chooses EAL's options: the
// CPUs the process was given when it started (its affinity: taskset, a
// container's cpuset, mpirun's binding chose them, not pfcfabric). Before,
// the virtual clock asked EAL for lcore 0 on CPU 0 whatever it was given, so
// `taskset -c 1 pfcfabric` ran on CPU 0 (two runs side by side shared it)
// and a cpuset without CPU 0 could not start.
//
// Pure: no DPDK, unit-tested in tests/dataplane/emulator/spec.
#pragma once
#include <string>
#include <vector>

namespace pfc::emulator {

// The calling thread's CPUs, ascending (sched_getaffinity); call it before
// rte_eal_init, which pins the main thread to one. Never empty: {0} if the
// kernel will not say.
std::vector<unsigned> AllowedCpus();

// EAL's --lcores value for lcores 0..lcores-1, lcore i on
// cpus[(first + i) % cpus.size()] ("0@3,1@5"): an MPI rank on one machine
// passes its local rank as `first`, so ranks start on CPUs of their own;
// more lcores than CPUs share them. cpus must not be empty.
std::string LcoreMap(const std::vector<unsigned>& cpus, unsigned lcores, unsigned first);

}  // namespace pfc::emulator
