// SPDX-License-Identifier: BSD-3-Clause
// One switch per file prefix and per interface. Two pfcswitch processes on
// the same af_packet interfaces both receive every frame and both forward
// it, and two on the same file prefix fight over the telemetry socket; with
// --no-shconf (which the tests and small machines use) DPDK takes no lock of
// its own, so the switch takes these before EAL starts:
//  * the file prefix: an flock()ed file in the DPDK runtime directory
//    (<base>/dpdk/<prefix>/pfcswitch.lock, the directory EAL itself uses);
//  * the telemetry socket: refused if something already answers on it
//    (another DPDK application with this prefix, which holds no lock of ours);
//  * every kernel interface named by an `iface=` devarg of a net_af_packet or
//    net_af_xdp --vdev: <base>/pfcswitch/net<netns inode>-<iface>.lock, so
//    veth0 in one network namespace does not block veth0 in another.
// Each lock file holds the owner's pid, for the message. flock() locks die
// with the process, so a crashed switch never blocks the next one; a clean
// exit unlinks its files while still holding them (see Acquire for why that
// is safe). Main thread only, before EAL; nothing here touches DPDK.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "dataplane/config/config.h"

namespace pfc::pfcswitch {

// A kernel interface an EAL --vdev argument opens, and the vdev's name.
struct VdevIface {
  std::string device;  // "net_af_packet0"
  std::string iface;   // "veth0"
};

// The EAL --file-prefix ("rte" when absent, as EAL). Pure.
std::string EalFilePrefix(const std::vector<std::string>& eal_args);

// The interfaces named by af_packet / af_xdp --vdev arguments, in order.
// False (with *err) for an empty or malformed iface name, or one interface
// named twice. Pure.
bool EalVdevInterfaces(const std::vector<std::string>& eal_args, std::vector<VdevIface>* out,
                       std::string* err);

// Where EAL 22.11 puts runtime files: /var/run for root, else
// $XDG_RUNTIME_DIR or /tmp (eal_create_runtime_dir).
std::string RuntimeBase();

// An exclusive lock file held for the life of this object.
class LockFile {
 public:
  // Creates (mkdir -p) and locks `path`, writing our pid into it. On
  // conflict returns null with *holder_pid set to the pid written by the
  // holder (0 if it could not be read); on other failures *err says why.
  static std::unique_ptr<LockFile> Acquire(const std::string& path, long* holder_pid,
                                           std::string* err);
  ~LockFile();
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  LockFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_;
};

// Everything one switch instance holds; released (files unlinked) on
// destruction.
class InstanceLocks {
 public:
  struct Dirs {
    std::string dpdk_runtime;  // <base>/dpdk: prefix locks and telemetry sockets
    std::string ifaces;        // <base>/pfcswitch: interface locks
  };
  static Dirs DefaultDirs();

  // Takes the prefix lock, checks the telemetry socket, then locks each
  // interface. `ports` names the config port using each device, for the
  // message. Null and *err ("file prefix 'sw1' is in use by pfcswitch pid
  // 1234 (/var/run/dpdk/sw1/pfcswitch.lock)", "port p0: interface veth0 is
  // already used by pfcswitch pid 1234") when anything is taken.
  static std::unique_ptr<InstanceLocks> Acquire(const Dirs& dirs, const std::string& prefix,
                                                const std::vector<VdevIface>& ifaces,
                                                const std::vector<config::PortConfig>& ports,
                                                std::string* err);

 private:
  std::vector<std::unique_ptr<LockFile>> held_;
};

// What main calls: parses the EAL arguments (argv[0] first) and takes every
// lock in the default directories.
std::unique_ptr<InstanceLocks> LockInstance(const std::vector<char*>& eal_argv,
                                            const config::SwitchConfig& cfg, std::string* err);

}  // namespace pfc::pfcswitch
