// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/pfcctl/views.h"

#include <functional>

#include "dataplane/pfcctl/table.h"

namespace pfc::pfcctl {
namespace {

using nlohmann::json;
constexpr int kPrios = 8;

// A priority's value, a null json where the document lacks it.
json Of(const json& port, int q, const char* key) {
  const json& prio = port.value("prio", json::array());
  if (q >= static_cast<int>(prio.size()) || !prio[q].contains(key)) return json();
  return prio[q][key];
}

// a + b, or a * k: as the counters' type (doubles once they are rates).
json Add(const json& a, const json& b) {
  if (a.is_number_unsigned() && b.is_number_unsigned())
    return a.get<uint64_t>() + b.get<uint64_t>();
  if (a.is_number() && b.is_number()) return a.get<double>() + b.get<double>();
  return json();
}
json Scale(const json& a, uint64_t div) {
  if (a.is_number_unsigned()) return a.get<uint64_t>() / div;
  if (a.is_number()) return a.get<double>() / static_cast<double>(div);
  return json();
}

// One row per port, one column per priority: `title` heads the port column,
// `prefix` the others (PFC0, UC0, PG0).
std::string Matrix(const json& stats, const std::string& title, const std::string& prefix,
                   const std::function<json(const json& port, int q)>& value) {
  std::vector<std::string> header = {title};
  for (int q = 0; q < kPrios; q++) header.push_back(prefix + std::to_string(q));
  Table t(header);
  for (const auto& p : stats.value("ports", json::array())) {
    std::vector<std::string> row = {p.value("name", "?")};
    for (int q = 0; q < kPrios; q++) row.push_back(Cell(value(p, q)));
    t.Row(row);
  }
  return t.Render();
}

// True for a true flag or a non-zero number.
bool Set(const json& v) {
  return v.is_boolean() ? v.get<bool>() : v.is_number() && v.get<double>() != 0;
}

std::string Per(const ViewOptions& o) { return o.rates ? "/s" : ""; }

}  // namespace

std::string PfcView(const json& stats, const ViewOptions& o) {
  // On the wire a refresh is an XOFF again; received, the two are one count.
  std::string out = Matrix(stats, "Port Rx" + Per(o), "PFC",
                           [](const json& p, int q) { return Of(p, q, "pfc_xoff_rx"); });
  out += "\n" + Matrix(stats, "Port Tx" + Per(o), "PFC", [](const json& p, int q) {
           return Add(Of(p, q, "pfc_xoff_tx"), Of(p, q, "pfc_refresh_tx"));
         });
  if (o.xon) {
    out += "\n" + Matrix(stats, "Port Rx XON" + Per(o), "PFC",
                         [](const json& p, int q) { return Of(p, q, "pfc_xon_rx"); });
    out += "\n" + Matrix(stats, "Port Tx XON" + Per(o), "PFC",
                         [](const json& p, int q) { return Of(p, q, "pfc_xon_tx"); });
  }
  out += "\n" + Matrix(stats, "Paused us" + Per(o), "PFC",
                       [](const json& p, int q) { return Scale(Of(p, q, "paused_ns"), 1000); });
  out += "\n" + Matrix(stats, "Pausing us" + Per(o), "PFC",
                       [](const json& p, int q) { return Scale(Of(p, q, "pausing_ns"), 1000); });
  out +=
      "\n(Rx/Tx: PFC frames naming the priority, XOFF and refresh; Paused: our egress held by "
      "the peer's pause; Pausing: the peer held by ours)\n";
  return out;
}

std::string QueueView(const json& stats, const ViewOptions& o) {
  Table t({"Port", "TxQ", "Counter/pkts" + Per(o), "Counter/bytes" + Per(o), "Drop/pkts" + Per(o),
           "Drop/bytes" + Per(o), "ECN/marked" + Per(o), "Depth/pkts"});
  Table drops({"Port", "PG", "Reason", "Drop/pkts" + Per(o)});
  for (const auto& p : stats.value("ports", json::array())) {
    const std::string name = p.value("name", "?");
    for (int q = 0; q < kPrios; q++) {
      t.Row({name, "UC" + std::to_string(q), Cell(Of(p, q, "tx_packets")),
             Cell(Of(p, q, "tx_bytes")), Cell(Of(p, q, "tx_discards")),
             Cell(Of(p, q, "tx_discard_bytes")), Cell(Of(p, q, "ecn_marked")),
             Cell(Of(p, q, "queue_depth"))});
      const json d = Of(p, q, "drops");
      if (!d.is_object()) continue;
      for (auto r = d.begin(); r != d.end(); ++r)
        if (Set(r.value())) drops.Row({name, "PG" + std::to_string(q), r.key(), Cell(r.value())});
    }
  }
  std::string out = t.Render();
  out +=
      "(UC<q>: egress queue of priority q; Drop: taken from the queue and not sent, by the "
      "watchdog or DCFIT)\n\nIngress drops by port, priority group and reason:\n";
  out += drops.rows() ? drops.Render() : "(none)\n";
  return out;
}

std::string WatermarkView(const json& stats) {
  std::string out = "Egress queue watermark (packets) per unicast queue:\n";
  out += Matrix(stats, "Port", "UC",
                [](const json& p, int q) { return Of(p, q, "egress_watermark"); });
  out += "\nIngress buffer watermark (bytes) per priority group:\n";
  out += Matrix(stats, "Port", "PG",
                [](const json& p, int q) { return Of(p, q, "buffer_watermark"); });
  out += "\nIngress headroom watermark (bytes) per priority group:\n";
  out += Matrix(stats, "Port", "PG",
                [](const json& p, int q) { return Of(p, q, "headroom_watermark"); });
  out +=
      "\n(`pfcctl clear watermarks` resets the egress watermarks; the ingress ones count from "
      "the switch's start)\n";
  return out;
}

std::string PfcwdView(const json& stats, const ViewOptions& o) {
  bool watched = false;
  Table t({"QUEUE", "STATUS", "STORM DETECTED/RESTORED" + Per(o), "STORM TIME us" + Per(o),
           "TX OK/DROP" + Per(o), "RX DROP" + Per(o)});
  for (const auto& p : stats.value("ports", json::array())) {
    for (int q = 0; q < kPrios; q++) {
      // The watchdog guards lossless queues; a lossy one with counts (a
      // priority made lossy by a reload) is shown too.
      if (!Set(Of(p, q, "lossless")) && !Set(Of(p, q, "pfcwd_storms"))) continue;
      const json drops = Of(p, q, "drops");
      const json rx_drop = drops.is_object() ? drops.value("pfcwd_storm", json()) : json();
      const bool storm = Set(Of(p, q, "pfcwd_in_storm"));
      const bool on = Set(Of(p, q, "pfcwd_enabled"));
      watched = watched || on;
      t.Row({p.value("name", "?") + ":" + std::to_string(q),
             storm ? "stormed"
             : on  ? "operational"
                   : "off",
             Cell(Of(p, q, "pfcwd_storms")) + "/" + Cell(Of(p, q, "pfcwd_restores")),
             Cell(Scale(Of(p, q, "pfcwd_storm_ns"), 1000)),
             Cell(Of(p, q, "tx_packets")) + "/" + Cell(Of(p, q, "tx_discards")), Cell(rx_drop)});
    }
  }
  if (t.rows() == 0) return t.Render() + "(no lossless priority on this switch)\n";
  return t.Render() +
         (watched ? ""
                  : "(no queue has the pause-storm watchdog: it runs where the switch config's "
                    "pfc_watchdog section enables it)\n") +
         "(QUEUE: port:priority; STATUS off: not watched; TX: the egress queue; RX DROP: what "
         "arrived on the port's priority and met a storming queue)\n";
}

}  // namespace pfc::pfcctl
