#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs everything pfcswitch needs to build, test, benchmark and run its
# RoCEv2 demo on Debian 12, from Debian's packages only. Run as root.
# Idempotent: a second run only checks.
set -euo pipefail
PKGS=(
  # build
  meson ninja-build pkg-config g++ clang libclang-rt-14-dev clang-format
  dpdk dpdk-dev libdpdk-dev            # dpdk-testpmd is in dpdk-dev
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libtbb-dev zlib1g-dev libisal-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  # system tests: namespaces, traffic, captures, PFC decoding
  iproute2 ethtool iputils-ping tcpdump tshark python3 python3-scapy procps time
  # experiments: figures; fabric files written from Python (tools/pfclib/fabric_files.py)
  python3-matplotlib python3-yaml
  # pfcfabric over MPI ranks (mpirun -np N pfcfabric)
  libopenmpi-dev openmpi-bin
  # RoCEv2 over soft-RoCE in a qemu guest (tools/rocev2-vm)
  qemu-system-x86 busybox-static kmod cpio bc
  rdma-core ibverbs-providers ibverbs-utils libibverbs-dev perftest
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The RoCEv2 harness downloads the guest kernel with apt-get: it needs lists.
if [ "$(id -u)" = 0 ] && [ -z "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v -e lock -e partial)" ]; then
  apt-get update -q
fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "install-deps: missing packages (${missing[*]}); run as root" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no, quietly.
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
