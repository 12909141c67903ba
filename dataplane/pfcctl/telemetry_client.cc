// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/pfcctl/telemetry_client.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace pfc::pfcctl {

TelemetryClient::~TelemetryClient() {
  if (fd_ >= 0) close(fd_);
}

std::string TelemetrySocketPath(const std::string& runtime_dir, const std::string& file_prefix) {
  return runtime_dir + "/" + file_prefix + "/dpdk_telemetry.v2";
}

bool TelemetryClient::Connect(const std::string& path, std::string* err) {
  fd_ = socket(AF_UNIX, SOCK_SEQPACKET, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) {
    *err = "socket path too long: " + path;
    return false;
  }
  std::strcpy(addr.sun_path, path.c_str());
  if (fd_ < 0 || connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    *err = "cannot connect to " + path + ": " + std::strerror(errno) +
           " (is pfcswitch running with this --file-prefix?)";
    return false;
  }
  std::vector<char> buf(4096);
  ssize_t n = recv(fd_, buf.data(), buf.size(), 0);
  if (n <= 0) {
    *err = "no greeting from " + path;
    return false;
  }
  auto hello = nlohmann::json::parse(std::string(buf.data(), n), nullptr, false);
  if (hello.is_object() && hello.contains("max_output_len"))
    max_len_ = hello["max_output_len"].get<size_t>();
  return true;
}

bool TelemetryClient::Query(const std::string& cmd, nlohmann::json* out, std::string* err) {
  // MSG_NOSIGNAL: a switch that went away is an error to report, not a
  // SIGPIPE that kills pfcctl mid-line.
  if (send(fd_, cmd.data(), cmd.size(), MSG_NOSIGNAL) < 0) {
    *err = std::string("send: ") + std::strerror(errno);
    return false;
  }
  std::vector<char> buf(max_len_ + 1);
  ssize_t n = recv(fd_, buf.data(), buf.size(), 0);
  if (n <= 0) {
    *err = "no answer to " + cmd;
    return false;
  }
  auto j = nlohmann::json::parse(std::string(buf.data(), n), nullptr, false);
  const std::string key = cmd.substr(0, cmd.find(','));
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) {
    *err = "bad answer to " + cmd + ": " + std::string(buf.data(), n);
    return false;
  }
  *out = j[key];
  return true;
}

nlohmann::json NestPortStats(const nlohmann::json& flat) {
  nlohmann::json out = nlohmann::json::object();
  nlohmann::json prio = nlohmann::json::array();
  for (int q = 0; q < 8; q++) prio.push_back({{"prio", q}, {"drops", nlohmann::json::object()}});
  for (auto it = flat.begin(); it != flat.end(); ++it) {
    const std::string& k = it.key();
    if (!it.value().is_array()) {
      out[k] = it.value();
      continue;
    }
    const bool drop = k.rfind("prio_drop_", 0) == 0;
    const std::string name = drop ? k.substr(10) : (k.rfind("prio_", 0) == 0 ? k.substr(5) : k);
    for (size_t q = 0; q < it.value().size() && q < 8; q++) {
      if (drop)
        prio[q]["drops"][name] = it.value()[q];
      else if (name == "lossless")
        prio[q][name] = it.value()[q].get<uint64_t>() != 0;
      else
        prio[q][name] = it.value()[q];
    }
  }
  for (auto& p : prio) {
    uint64_t t = 0;
    for (auto& d : p["drops"]) t += d.get<uint64_t>();
    p["drops_total"] = t;
  }
  out["prio"] = prio;
  return out;
}

}  // namespace pfc::pfcctl
