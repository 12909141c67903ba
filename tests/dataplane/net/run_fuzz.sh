#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds the parser fuzzer with clang (meson's compiler is g++, which has no
# libFuzzer) and runs it for a bounded time. Fails on any crash, sanitizer
# report or invariant violation.
# Usage: run_fuzz.sh SOURCE_ROOT WORK_DIR [SECONDS]
set -eu
src=${1:?source root}
work=${2:?work dir}
secs=${3:-20}
CLANGXX=${CLANGXX:-clang++}

command -v "$CLANGXX" >/dev/null || { echo "run_fuzz: $CLANGXX not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
mkdir -p "$work/corpus"
bin="$work/fuzz_parser"

"$CLANGXX" -std=c++20 -g -O1 -fno-omit-frame-pointer \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -I"$src" \
  "$src/tests/dataplane/net/fuzz_parser.cc" \
  "$src/dataplane/net/parser.cc" \
  "$src/dataplane/net/ipv4_edit.cc" \
  -o "$bin"

# Seeds so the fuzzer starts inside every branch of the parser: valid IPv4
# (correct checksum), IPv4 with options and fragment bits in a VLAN tag, ARP,
# MAC control (PFC), IPv6, a runt. Optional: without python3 it starts empty.
if command -v python3 >/dev/null; then
  python3 - "$work/corpus" <<'PY'
import struct, sys, os
d = sys.argv[1]
def csum(h):
    s = sum(struct.unpack('!%dH' % (len(h) // 2), h))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff
def ipv4(ihl=5, frag=0x4000, payload=26, dscp=10):
    h = bytearray(struct.pack('!BBHHHBBH4s4s', 0x40 | ihl, dscp << 2, ihl * 4 + payload, 0x1234,
                              frag, 64, 17, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 1, 2])))
    h += b'\x01' * (ihl * 4 - 20)
    h[10:12] = struct.pack('!H', csum(bytes(h)))
    return bytes(h) + b'\xab' * payload
eth = bytes.fromhex('020000000001' '020000000002')
seeds = {
    'ipv4': eth + b'\x08\x00' + ipv4(),
    'vlan_opts_frag': eth + bytes.fromhex('8100 6123 0800') + ipv4(ihl=7, frag=0x2005, payload=8),
    'arp': b'\xff' * 6 + eth[6:] + bytes.fromhex('0806 0001 0800 06 04 0001 021122334455 0a000001'
                                                 '000000000000 0a0000fe'),
    'pfc': bytes.fromhex('0180c2000001') + eth[6:] + bytes.fromhex('8808 0101 00ff') + bytes(42),
    'ipv6': eth + bytes.fromhex('86dd 6000000000003a40') + bytes(32),
    'runt': bytes(5),
}
for name, data in seeds.items():
    with open(os.path.join(d, 'seed-' + name), 'wb') as f:
        f.write(data)
PY
fi

"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
  -artifact_prefix="$work/" "$work/corpus"
