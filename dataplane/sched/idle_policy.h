// SPDX-License-Identifier: BSD-3-Clause
// How an idle worker whose ports give receive interrupts (vhost: the guest
// kicks) sleeps: until a kick, or for idle_sleep_us. Pure, so it tests
// without EAL; worker.cc owns one per worker thread and does the sleeping.
//
// A kick costs the guest a trip through its hypervisor and the worker a
// wake-up per packet, so a stream is cheaper polled: one wake per interval
// for many packets. After a wake that found packets the worker polls: it
// takes timed sleeps for as long as each ends with packets waiting, and the
// first that ends with none puts it back on the kick. NAPI defers
// re-enabling a NIC's interrupt while polls keep finding work, for the same
// reason. The price is latency: a request that lands while the worker
// polls waits for the end of the interval (docs/howto/vms.md).
//
// Not done: telling a request-response exchange from a stream to keep the
// former on kicks. With reliable connections every message is answered by
// an acknowledgement, so "one packet in flight" does not hold, and a probe
// that counts packets misreads perftest's ping-pong as a stream.
#pragma once

#include <cstdint>

namespace pfc::sched {

class IdlePolicy {
 public:
  // Whether the next idle sleep is timed (else: until a kick or deadline).
  bool timed() const { return polling_; }

  // The packets the first round after a sleep moved; for an interrupt
  // sleep, including those its last look before sleeping found.
  void AfterSleep(unsigned packets) { polling_ = packets != 0; }

 private:
  bool polling_ = false;
};

}  // namespace pfc::sched
