// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/pfcswitch/instance_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <thread>

namespace pfc::pfcswitch {
namespace {

// "--opt value" or "--opt=value" at args[i]; advances i past a separate value.
bool OptionValue(const std::vector<std::string>& args, size_t* i, const std::string& opt,
                 std::string* value) {
  const std::string& a = args[*i];
  if (a == opt && *i + 1 < args.size()) {
    *value = args[++*i];
    return true;
  }
  if (a.rfind(opt + "=", 0) == 0) {
    *value = a.substr(opt.size() + 1);
    return true;
  }
  return false;
}

// Drivers whose `iface=` devarg is a kernel interface the PMD opens. Both
// names are registered by DPDK for af_packet (eth_af_packet is its alias).
bool OpensKernelIface(const std::string& device) {
  for (const char* d : {"net_af_packet", "eth_af_packet", "net_af_xdp"})
    if (device.rfind(d, 0) == 0) return true;
  return false;
}

std::string ReadPidFile(int fd) {
  char buf[32] = {};
  ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  return n > 0 ? std::string(buf, n) : std::string();
}

// The pid a holder wrote. It writes right after locking, so a reader that
// lost the race by microseconds retries briefly before giving up with 0.
long HolderPid(const std::string& path) {
  for (int attempt = 0; attempt < 20; attempt++) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    const std::string s = ReadPidFile(fd);
    close(fd);
    char* end;
    long pid = std::strtol(s.c_str(), &end, 10);
    if (pid > 0 && *end == '\n') return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return 0;
}

std::string PidText(long pid) {
  return pid > 0 ? "pid " + std::to_string(pid) : "a process whose pid is unknown";
}

// Something accepting connections on the telemetry socket: its pid (from
// SO_PEERCRED), 0 if unknown, -1 if nothing listens there.
long TelemetryListener(const std::string& path) {
  sockaddr_un addr{};
  if (path.size() >= sizeof(addr.sun_path)) return -1;
  addr.sun_family = AF_UNIX;
  std::strcpy(addr.sun_path, path.c_str());
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  long pid = -1;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    ucred cred{};
    socklen_t len = sizeof(cred);
    pid = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 ? cred.pid : 0;
  }
  close(fd);
  return pid;
}

// Identity of our network namespace: interface names are per namespace.
std::string NetnsId() {
  struct stat st {};
  if (stat("/proc/self/ns/net", &st) != 0) return "net0";
  return "net" + std::to_string(st.st_ino);
}

}  // namespace

std::string EalFilePrefix(const std::vector<std::string>& eal_args) {
  std::string prefix = "rte", v;
  for (size_t i = 0; i < eal_args.size(); i++)
    if (OptionValue(eal_args, &i, "--file-prefix", &v)) prefix = v;
  return prefix;
}

bool EalVdevInterfaces(const std::vector<std::string>& eal_args, std::vector<VdevIface>* out,
                       std::string* err) {
  out->clear();
  std::set<std::string> seen;
  std::string v;
  for (size_t i = 0; i < eal_args.size(); i++) {
    if (!OptionValue(eal_args, &i, "--vdev", &v)) continue;
    const std::string device = v.substr(0, v.find(','));
    if (!OpensKernelIface(device)) continue;
    std::string iface;
    size_t pos = v.find(',');
    while (pos != std::string::npos) {
      const size_t next = v.find(',', pos + 1);
      const std::string kv =
          v.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1);
      if (kv.rfind("iface=", 0) == 0) iface = kv.substr(6);
      pos = next;
    }
    // Linux interface names: 1..15 bytes, no '/' or whitespace. Anything
    // else cannot be an interface and must not become a lock file path.
    if (iface.empty() || iface.size() > 15 || iface.find_first_of("/ \t\n") != std::string::npos ||
        iface == "." || iface == "..") {
      *err = "EAL argument --vdev " + v +
             ": expected iface=<interface name> (1-15 characters, no '/')";
      return false;
    }
    if (!seen.insert(iface).second) {
      *err = "EAL argument --vdev " + v + ": interface " + iface +
             " is already named by another --vdev";
      return false;
    }
    out->push_back({device, iface});
  }
  return true;
}

std::string RuntimeBase() {
  if (getuid() == 0) return "/var/run";
  const char* xdg = std::getenv("XDG_RUNTIME_DIR");
  return xdg ? xdg : "/tmp";
}

std::unique_ptr<LockFile> LockFile::Acquire(const std::string& path, long* holder_pid,
                                            std::string* err) {
  *holder_pid = 0;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) {
    *err =
        "cannot create " + std::filesystem::path(path).parent_path().string() + ": " + ec.message();
    return nullptr;
  }
  // A holder unlinks its file at exit while still locked. Someone who opened
  // the old file just before may then lock an inode no longer reachable by
  // name, while a newcomer creates and locks a fresh one: both would run. So
  // after locking, check that the name still leads to the locked inode, and
  // start over if not.
  for (int attempt = 0; attempt < 100; attempt++) {
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      *err = "cannot open " + path + ": " + std::strerror(errno);
      return nullptr;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      close(fd);
      if (e != EWOULDBLOCK) {
        *err = "cannot lock " + path + ": " + std::strerror(e);
        return nullptr;
      }
      *holder_pid = HolderPid(path);
      return nullptr;
    }
    struct stat held {
    }, named{};
    if (fstat(fd, &held) != 0 || stat(path.c_str(), &named) != 0 || held.st_ino != named.st_ino ||
        held.st_dev != named.st_dev) {
      close(fd);
      continue;
    }
    const std::string pid = std::to_string(getpid()) + "\n";
    if (ftruncate(fd, 0) != 0 ||
        pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
      *err = "cannot write " + path + ": " + std::strerror(errno);
      unlink(path.c_str());
      close(fd);
      return nullptr;
    }
    return std::unique_ptr<LockFile>(new LockFile(path, fd));
  }
  *err = "cannot lock " + path + ": it keeps being replaced";
  return nullptr;
}

LockFile::~LockFile() {
  unlink(path_.c_str());  // while still locked: see Acquire
  close(fd_);
}

InstanceLocks::Dirs InstanceLocks::DefaultDirs() {
  const std::string base = RuntimeBase();
  return {base + "/dpdk", base + "/pfcswitch"};
}

std::unique_ptr<InstanceLocks> InstanceLocks::Acquire(const Dirs& dirs, const std::string& prefix,
                                                      const std::vector<VdevIface>& ifaces,
                                                      const std::vector<config::PortConfig>& ports,
                                                      std::string* err) {
  if (prefix.empty() || prefix.find('/') != std::string::npos) {
    *err = "EAL argument --file-prefix '" + prefix + "': expected a name without '/'";
    return nullptr;
  }
  std::unique_ptr<InstanceLocks> locks(new InstanceLocks);
  long holder = 0;
  std::string why;
  const std::string prefix_dir = dirs.dpdk_runtime + "/" + prefix;
  const std::string prefix_lock = prefix_dir + "/pfcswitch.lock";
  auto lock = LockFile::Acquire(prefix_lock, &holder, &why);
  if (!lock) {
    *err = why.empty() ? "file prefix '" + prefix + "' is in use by pfcswitch " + PidText(holder) +
                             " (" + prefix_lock + "); give this instance its own --file-prefix"
                       : "file prefix '" + prefix + "': " + why;
    return nullptr;
  }
  locks->held_.push_back(std::move(lock));

  // Another DPDK application (not a pfcswitch, so holding no lock of ours)
  // serving telemetry under this prefix would keep the socket pfcctl uses.
  const std::string sock = prefix_dir + "/dpdk_telemetry.v2";
  const long listener = TelemetryListener(sock);
  if (listener >= 0) {
    *err = "file prefix '" + prefix + "': telemetry socket " + sock + " is in use by " +
           PidText(listener) + "; give this instance its own --file-prefix";
    return nullptr;
  }

  const std::string netns = NetnsId();
  for (const auto& vi : ifaces) {
    std::string who = "device " + vi.device;
    for (const auto& p : ports)
      if (p.device == vi.device) who = "port " + p.name;
    const std::string path = dirs.ifaces + "/" + netns + "-" + vi.iface + ".lock";
    lock = LockFile::Acquire(path, &holder, &why);
    if (!lock) {
      *err = why.empty() ? who + ": interface " + vi.iface + " is already used by pfcswitch " +
                               PidText(holder) + " (" + path + ")"
                         : who + ": interface " + vi.iface + ": " + why;
      return nullptr;
    }
    locks->held_.push_back(std::move(lock));
  }
  return locks;
}

std::unique_ptr<InstanceLocks> LockInstance(const std::vector<char*>& eal_argv,
                                            const config::SwitchConfig& cfg, std::string* err) {
  std::vector<std::string> args;
  for (size_t i = 1; i < eal_argv.size(); i++) args.emplace_back(eal_argv[i]);
  std::vector<VdevIface> ifaces;
  if (!EalVdevInterfaces(args, &ifaces, err)) return nullptr;
  return InstanceLocks::Acquire(InstanceLocks::DefaultDirs(), EalFilePrefix(args), ifaces,
                                cfg.ports, err);
}

}  // namespace pfc::pfcswitch
