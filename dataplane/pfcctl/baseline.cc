// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/pfcctl/baseline.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

namespace pfc::pfcctl {

std::string BaselinePath(const std::string& socket_path, const std::string& sw) {
  // <runtime-dir>/<file-prefix>/dpdk_telemetry.v2: the prefix is the
  // socket's directory; any other socket path is named by its file.
  std::string dir = socket_path.substr(0, socket_path.rfind('/') + 1);
  if (!dir.empty()) dir.pop_back();
  std::string name = dir.substr(dir.rfind('/') + 1);
  if (name.empty()) name = socket_path.substr(socket_path.rfind('/') + 1);
  if (!sw.empty()) name += "-" + sw;
  for (char& c : name)
    if (c == '/' || c == ' ') c = '_';
  const char* rt = std::getenv("XDG_RUNTIME_DIR");
  return std::string(rt && *rt ? rt : "/tmp") + "/pfcctl-" + name + ".json";
}

std::string SocketIdentity(const std::string& socket_path) {
  struct stat st {};
  if (stat(socket_path.c_str(), &st) != 0) return "";
  return std::to_string(st.st_ino) + ":" +
         std::to_string(static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec);
}

bool SaveBaseline(const std::string& path, const std::string& identity, const nlohmann::json& stats,
                  std::string* err) {
  const nlohmann::json doc = {
      {"socket", identity}, {"time", static_cast<int64_t>(std::time(nullptr))}, {"stats", stats}};
  // Written whole to a temporary, then renamed: a view never reads half.
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    f << doc.dump() << "\n";
    if (!f) {
      *err = "cannot write " + tmp + ": " + std::strerror(errno);
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    *err = "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

bool LoadBaseline(const std::string& path, const std::string& identity, nlohmann::json* stats,
                  int64_t* when) {
  std::ifstream f(path);
  if (!f) return false;
  std::stringstream ss;
  ss << f.rdbuf();
  const auto doc = nlohmann::json::parse(ss.str(), nullptr, false);
  if (!doc.is_object() || doc.value("socket", "") != identity || identity.empty() ||
      !doc.contains("stats"))
    return false;
  *stats = doc["stats"];
  *when = doc.value("time", int64_t{0});
  return true;
}

}  // namespace pfc::pfcctl
