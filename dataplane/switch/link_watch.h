// SPDX-License-Identifier: BSD-3-Clause
// The link state of a switch's device (ethdev) ports, watched by the control
// thread: a link that goes down ends the pauses it received and the peer is
// taken to have forgotten ours, as for an emulated link (stages/worker.cc
// LinkChanged). The watch owns the polling; the port's
// owner reads what it published (PortOwnerState::dev_link_up).
//
// Where the state comes from: a device bound to a kernel interface
// (af_packet, af_xdp, tap: dev_info.if_index) reports the interface's state,
// since those drivers keep the link "up" whatever the kernel says; a
// deleted interface is down. Any other device reports its own link
// (rte_eth_link_get_nowait: memif without a peer, ring, a NIC).
#pragma once
#include <string>
#include <vector>

#include "dataplane/switch/switch.h"

namespace pfc::sw {

class LinkWatch {
 public:
  // Asks each device port once whether it is bound to a kernel interface.
  explicit LinkWatch(Switch& sw);
  // Polls every device port; publishes changes to their owners and returns
  // one line for each ("port p2: link down"). Control thread only.
  std::vector<std::string> Poll();

 private:
  Switch& sw_;
  // By port: the kernel interface a device is bound to (dev_info.if_index),
  // 0 for a device that reports its own link or an emulated port.
  std::vector<unsigned> if_index_;
};

}  // namespace pfc::sw
