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

usage() {
  cat <<'USAGE'
Usage: tools/netns-topo.sh up|down [N] [PREFIX]
  up    delete PREFIX's namespaces, then create N hosts PREFIXh0.. (eth0 at
        10.0.(i+1).2/24, gateway 10.0.(i+1).1), each on a veth pair to the
        switch namespace PREFIXsw (its ends PREFIXp0..), offloads off
  down  delete the namespaces PREFIXsw and PREFIXh0..PREFIXh15
  N defaults to 2 (1..16), PREFIX to pfc. Run as root.
  -h, --help  print this and exit
USAGE
}

# Every argument is checked before a namespace is touched: `up` starts by
# deleting PREFIX's namespaces, so a mistyped word must not reach it.
bad() {
  echo "netns-topo.sh: $1" >&2
  usage >&2
  exit 2
}
for a in "$@"; do
  case $a in
    -h | --help) usage; exit 0 ;;
    -*) bad "unknown option '$a'" ;;
  esac
done
case ${1:-up} in
  up | down) ;;
  *) bad "unknown command '$1' (expected up or down)" ;;
esac
[ $# -le 3 ] || bad "too many arguments"
cmd=${1:-up}; n=${2:-2}; pre=${3:-pfc}
# down deletes h0..h15 whatever N is, so up builds no more than it removes.
[[ $n =~ ^[0-9]+$ ]] && ((10#$n >= 1 && 10#$n <= 16)) || bad "N: expected a number of hosts 1..16 (got '$n')"
n=$((10#$n))
# The longest name made is the veth end ${pre}p15, and Linux allows 15 characters.
[[ $pre =~ ^[A-Za-z0-9_.]{1,12}$ ]] || bad "PREFIX: expected 1..12 letters, digits, '_' or '.' (got '$pre')"
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
