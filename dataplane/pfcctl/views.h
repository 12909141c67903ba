// SPDX-License-Identifier: BSD-3-Clause
// pfcctl's SONiC-like views over a stats document (the shape of
// `pfcctl stats`, deltas.h), as text:
//   PfcView          `show pfc counters`: one row per port, PFC0..PFC7,
//                    pause frames received and sent (XON apart), pause time
//   QueueView        `show queue counters`: one row per port and egress
//                    queue UC0..UC7, then the ingress drops by reason
//   WatermarkView    `show queue watermark` and `show priority-group
//                    watermark`: egress queues, ingress buffer, headroom
//   PfcwdView        `pfcwd show stats`: the watchdog per lossless queue
// Every port has its rows, zeros included. With `rates` the numbers are
// per second (deltas.h PerSecond) and the titles say so. Pure; no DPDK.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace pfc::pfcctl {

struct ViewOptions {
  bool xon = false;    // PfcView: XON frames too
  bool rates = false;  // the counters are per second
};

std::string PfcView(const nlohmann::json& stats, const ViewOptions& o);
std::string QueueView(const nlohmann::json& stats, const ViewOptions& o);
std::string WatermarkView(const nlohmann::json& stats);
std::string PfcwdView(const nlohmann::json& stats, const ViewOptions& o);

}  // namespace pfc::pfcctl
