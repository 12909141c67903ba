// SPDX-License-Identifier: BSD-3-Clause
// Transparent huge pages for the emulator's heap. A fabric's state
// (switches, link ends, hosts, flows: hundreds of MB at datacenter scale)
// lives in malloc's heap and is read at random, each switch's lines cold
// by its next round: with 4 KB pages most of those reads miss the TLB as
// well. glibc's malloc backs its heap with transparent huge pages when its
// tunable glibc.malloc.hugetlb is 1, but the loader reads tunables only
// when a program starts (GLIBC_TUNABLES): so pfcfabric starts itself
// again, once, first thing in main (before MPI or EAL), with the tunable
// added. What is large and mostly untouched stays on 4 KB pages (the
// switches' egress rings, switch/heap_ring.cc; route tables, ZeroPages),
// or a huge page populated whole would cost up to 2 MB each: resident
// memory stays where it was. docs/explanation/emulator-scale.md has the
// measurements.
#pragma once
#include <string>

namespace pfc::emulator {

// PFCFABRIC_HUGE_PAGES unset, 0 or 1; else false with *err naming it and
// what it takes (main refuses to start).
bool HugePagesSettingOk(std::string* err);

// Replaces the process with itself under glibc.malloc.hugetlb=1, or returns
// (nothing changed) when that would not help or not work: the kernel's THP
// off ("never"), the tunable already set by the caller, under valgrind
// (its tools would lose the program at the exec), PFCFABRIC_HUGE_PAGES=0,
// or the exec failing. On the second start it returns at once, the
// environment as the caller had it (children, such as tshark, see that).
// Returns whether the heap is on huge pages: restarted, or the caller's
// GLIBC_TUNABLES asked for them already.
bool RestartWithHugePages(char** argv);

}  // namespace pfc::emulator
