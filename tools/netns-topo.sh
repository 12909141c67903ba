#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# netns-topo.sh up|down [N] [PREFIX]
# Builds N hosts (network namespaces ${PREFIX}h0..) each wired by a veth pair
# to a switch namespace ${PREFIX}sw, where the switch's DPDK af_packet ports
# use the switch-side ends ${PREFIX}p0... Host i is 10.0.(i+1).2/24 with
# gateway 10.0.(i+1).1 (the switch's port address in the configs). No Linux
# bridge is involved (a bridge drops PFC frames). Offloads are off on every
# veth: an AF_PACKET switch sees frames as the kernel built them, so
# checksums must be complete and segments real.
set -euo pipefail
cmd=${1:-up}; n=${2:-2}; pre=${3:-pfc}
sw=${pre}sw
down() {
  for ((i = 0; i < 16; i++)); do ip netns del ${pre}h$i 2>/dev/null || true; done
  ip netns del $sw 2>/dev/null || true
}
if [ "$cmd" = down ]; then down; exit 0; fi
down
ip netns add $sw
ip -n $sw link set lo up
for ((i = 0; i < n; i++)); do
  h=${pre}h$i
  ip netns add $h
  ip -n $h link set lo up
  ip link add ${pre}p$i netns $sw type veth peer name eth0 netns $h
  for ns in $sw $h; do
    dev=eth0; [ $ns = $sw ] && dev=${pre}p$i
    ip netns exec $ns ethtool -K $dev tx off tso off gso off gro off rx off >/dev/null 2>&1 || true
    ip -n $ns link set $dev up
  done
  ip -n $h addr add 10.0.$((i + 1)).2/24 dev eth0
  ip -n $h route add default via 10.0.$((i + 1)).1
  ip netns exec $h sysctl -qw net.ipv6.conf.all.disable_ipv6=1
done
ip netns exec $sw sysctl -qw net.ipv6.conf.all.disable_ipv6=1
