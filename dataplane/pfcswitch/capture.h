// SPDX-License-Identifier: BSD-3-Clause
// Capture by DPDK's own tools: dpdk-dumpcap and dpdk-pdump are secondary
// processes that attach to a running pfcswitch (the primary) and ask its
// rte_pdump to copy every packet a port receives or sends (PFC frames
// included: they leave through rte_eth_tx_burst like data) into a ring
// they read. They need what DPDK 22.11 shares between processes:
//  * the shared config and the multi-process socket: no --no-shconf and no
//    --in-memory (both turn the IPC off);
//  * hugepage memory: a --no-huge primary's memory is anonymous, and a
//    secondary finds neither hugepage_info (dpdk-dumpcap, which passes no
//    --no-huge: "Cannot get hugepage information") nor hugepage_data
//    (dpdk-pdump --no-huge: "Could not open .../hugepage_data").
// The check is pure (unit-tested without EAL); pfcswitch_main.cc calls
// rte_pdump_init when it passes and prints the reason when it does not.
#pragma once
#include <string>
#include <vector>

namespace pfc::pfcswitch {

// Why a secondary process cannot capture this switch's ports with these EAL
// arguments, naming the argument; empty when it can.
std::string CaptureUnavailableReason(const std::vector<std::string>& eal_args);

}  // namespace pfc::pfcswitch
