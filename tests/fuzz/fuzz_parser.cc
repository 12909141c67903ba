// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for the packet parser and the IPv4 edits. Built by
// run_fuzz.sh with clang++ -fsanitize=fuzzer,address,undefined; the input is
// a heap buffer of exactly `size` bytes, so any read past len is an ASan error.
// Beyond "no crash", it checks the parser's promises and the edits'
// checksum invariants, aborting on any violation.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "dataplane/net/ipv4_edit.h"
#include "dataplane/net/parser.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

uint16_t StoredCsum(const uint8_t* ip) {
  uint16_t c;
  std::memcpy(&c, ip + 10, 2);
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pfc;
  const uint32_t len = size > 0xffffffffu ? 0xffffffffu : static_cast<uint32_t>(size);
  net::ParsedPacket p;
  const net::PktKind k = net::ParseFrame(data, len, true, &p);
  FUZZ_CHECK(k == p.kind);
  net::ParsedPacket q;
  const net::PktKind k2 = net::ParseFrame(data, len, false, &q);
  // Verification can only turn a good IPv4 packet into kBadIpChecksum.
  if (k != k2)
    FUZZ_CHECK(k == net::PktKind::kBad && p.bad == DropReason::kBadIpChecksum &&
               k2 == net::PktKind::kIpv4);

  switch (q.kind) {
    case net::PktKind::kBad:
      FUZZ_CHECK(q.bad < DropReason::kCount);
      break;
    case net::PktKind::kArp: {
      FUZZ_CHECK(q.l3_off + 28u <= len);
      net::ArpView a;
      if (net::ParseArp(data, len, q, &a)) FUZZ_CHECK(a.op == 1 || a.op == 2);
      break;
    }
    case net::PktKind::kMacControl:
    case net::PktKind::kOtherL2:
      FUZZ_CHECK(q.l3_off <= len);
      break;
    case net::PktKind::kIpv4: {
      FUZZ_CHECK(q.ip_hdr_len >= 20 && q.ip_hdr_len <= 60 && q.ip_hdr_len % 4 == 0);
      FUZZ_CHECK(q.ip_total_len >= q.ip_hdr_len && q.l3_off + q.ip_total_len <= len);
      FUZZ_CHECK(q.ip_options == (q.ip_hdr_len > 20) && q.dscp < 64);
      // Edit a private copy (the fuzzer's input is read-only).
      std::vector<uint8_t> ip(data + q.l3_off, data + q.l3_off + q.ip_hdr_len);
      const bool was_ok = net::Ipv4ChecksumOk(ip.data(), q.ip_hdr_len);
      const bool canonical =
          StoredCsum(ip.data()) == net::Ipv4HeaderChecksum(ip.data(), q.ip_hdr_len);
      FUZZ_CHECK(!canonical || was_ok);
      net::Ipv4SetDscp(ip.data(), static_cast<uint8_t>(q.ttl));  // some data-driven DSCP
      FUZZ_CHECK((ip[1] >> 2) == (q.ttl & 63));
      if (q.ttl > 1) {
        net::Ipv4DecrementTtl(ip.data());
        FUZZ_CHECK(ip[8] == q.ttl - 1);
      }
      // Edits preserve validity, and exactness when the input was canonical.
      if (was_ok) FUZZ_CHECK(net::Ipv4ChecksumOk(ip.data(), q.ip_hdr_len));
      if (canonical)
        FUZZ_CHECK(StoredCsum(ip.data()) == net::Ipv4HeaderChecksum(ip.data(), q.ip_hdr_len));
      break;
    }
  }
  return 0;
}
