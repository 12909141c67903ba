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
// `fd`: a datagram socket to ask through, or -1 when none could be opened.
bool KernelIfUp(int fd, unsigned if_index) {
  char name[IF_NAMESIZE];
  if (if_indextoname(if_index, name) == nullptr) return false;  // deleted
  if (fd < 0) return true;  // cannot ask: keep it up (the driver's own state)
  ifreq ifr{};
  std::memcpy(ifr.ifr_name, name, sizeof(name));
  return ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 && (ifr.ifr_flags & IFF_UP) &&
         (ifr.ifr_flags & IFF_RUNNING);
}

}  // namespace

LinkWatch::LinkWatch(Switch& sw) : sw_(sw), if_index_(sw.ports.size(), 0) {
  for (size_t p = 0; p < sw.ports.size(); p++) {
    if (!sw.ports[p].io.ethdev()) continue;
    rte_eth_dev_info info{};
    if (rte_eth_dev_info_get(sw.ports[p].io.dpdk_port, &info) == 0) if_index_[p] = info.if_index;
  }
}

std::vector<std::string> LinkWatch::Poll() {
  std::vector<std::string> lines;
  int fd = -1;  // opened for the first kernel interface of this poll
  for (size_t p = 0; p < sw_.ports.size(); p++) {
    PortRuntime& pr = sw_.ports[p];
    if (!pr.io.ethdev()) continue;
    bool up;
    if (if_index_[p] != 0) {
      if (fd < 0) fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      up = KernelIfUp(fd, if_index_[p]);
    } else {
      rte_eth_link link{};
      up = rte_eth_link_get_nowait(pr.io.dpdk_port, &link) != 0 ||
           link.link_status == RTE_ETH_LINK_UP;
    }
    std::atomic<bool>& seen = pr.owner_state->dev_link_up;
    if (seen.load(std::memory_order_relaxed) == up) continue;
    seen.store(up, std::memory_order_relaxed);
    lines.push_back((sw_.name.empty() ? "" : sw_.name + " ") + "port " + pr.name +
                    (up ? ": link up" : ": link down"));
  }
  if (fd >= 0) close(fd);
  return lines;
}

}  // namespace pfc::sw
