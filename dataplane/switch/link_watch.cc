// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/switch/link_watch.h"

#include <net/if.h>
#include <rte_ethdev.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

namespace pfc::sw {
namespace {

// A kernel interface is up when it is administratively up and has a carrier
// (IFF_RUNNING: a veth whose peer went down, a cable pulled, clears it).
bool KernelIfUp(unsigned if_index) {
  char name[IF_NAMESIZE];
  if (if_indextoname(if_index, name) == nullptr) return false;  // deleted
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return true;  // cannot ask: keep it up, as before the watch
  ifreq ifr{};
  std::memcpy(ifr.ifr_name, name, sizeof(name));
  const bool up = ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 && (ifr.ifr_flags & IFF_UP) &&
                  (ifr.ifr_flags & IFF_RUNNING);
  close(fd);
  return up;
}

}  // namespace

bool DeviceLinkUp(uint16_t dpdk_port) {
  rte_eth_dev_info info{};
  if (rte_eth_dev_info_get(dpdk_port, &info) == 0 && info.if_index != 0)
    return KernelIfUp(info.if_index);
  rte_eth_link link{};
  if (rte_eth_link_get_nowait(dpdk_port, &link) != 0) return true;
  return link.link_status == RTE_ETH_LINK_UP;
}

std::vector<std::string> LinkWatch::Poll() {
  std::vector<std::string> lines;
  for (PortRuntime& pr : sw_.ports) {
    if (pr.io.kind != PortIo::Kind::kEthdev) continue;
    const bool up = DeviceLinkUp(pr.io.dpdk_port);
    std::atomic<bool>& seen = pr.owner_state->dev_link_up;
    if (seen.load(std::memory_order_relaxed) == up) continue;
    seen.store(up, std::memory_order_relaxed);
    lines.push_back((sw_.name.empty() ? "" : sw_.name + " ") + "port " + pr.name +
                    (up ? ": link up" : ": link down"));
  }
  return lines;
}

}  // namespace pfc::sw
