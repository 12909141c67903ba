// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the instance locks: EAL argument parsing, lock files that
// conflict and name their holder, that a killed holder releases, and the
// messages InstanceLocks gives for a taken prefix, telemetry socket and
// interface. flock() locks belong to open file descriptions, so two lock
// attempts in this one process conflict exactly as two processes would.
#include "dataplane/pfcswitch/instance_lock.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

namespace pfc {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string t = (fs::temp_directory_path() / "pfcsw-lock-XXXXXX").string();
    path_ = mkdtemp(t.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(EalArgs, FilePrefix) {
  EXPECT_EQ(pfcswitch::EalFilePrefix({"-l", "0,1"}), "rte");
  EXPECT_EQ(pfcswitch::EalFilePrefix({"--file-prefix", "sw1", "--no-pci"}), "sw1");
  EXPECT_EQ(pfcswitch::EalFilePrefix({"--file-prefix=sw2"}), "sw2");
}

TEST(EalArgs, VdevInterfaces) {
  std::vector<pfcswitch::VdevIface> v;
  std::string err;
  ASSERT_TRUE(pfcswitch::EalVdevInterfaces(
      {"--vdev", "net_af_packet0,iface=veth0,framecnt=4096", "--vdev=net_ring0", "--vdev",
       "net_af_xdp1,start_queue=0,iface=eth3", "--vdev", "eth_af_packet2,iface=p2"},
      &v, &err))
      << err;
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].device, "net_af_packet0");
  EXPECT_EQ(v[0].iface, "veth0");
  EXPECT_EQ(v[1].device, "net_af_xdp1");
  EXPECT_EQ(v[1].iface, "eth3");
  EXPECT_EQ(v[2].iface, "p2");
}

TEST(EalArgs, VdevInterfaceErrors) {
  std::vector<pfcswitch::VdevIface> v;
  std::string err;
  EXPECT_FALSE(pfcswitch::EalVdevInterfaces({"--vdev", "net_af_packet0,framecnt=4096"}, &v, &err));
  EXPECT_NE(err.find("net_af_packet0,framecnt=4096: expected iface="), std::string::npos) << err;
  EXPECT_FALSE(pfcswitch::EalVdevInterfaces({"--vdev", "net_af_packet0,iface=../x"}, &v, &err));
  EXPECT_FALSE(pfcswitch::EalVdevInterfaces(
      {"--vdev", "net_af_packet0,iface=waytoolonginterfacename"}, &v, &err));
  EXPECT_FALSE(pfcswitch::EalVdevInterfaces(
      {"--vdev", "net_af_packet0,iface=a", "--vdev", "net_af_xdp0,iface=a"}, &v, &err));
  EXPECT_NE(err.find("interface a is already named by another --vdev"), std::string::npos) << err;
}

TEST(LockFile, ConflictNamesHolderAndReleaseUnlinks) {
  TempDir d;
  const std::string path = d.path() + "/sub/x.lock";
  long holder = -1;
  std::string err;
  auto a = pfcswitch::LockFile::Acquire(path, &holder, &err);
  ASSERT_TRUE(a) << err;
  auto b = pfcswitch::LockFile::Acquire(path, &holder, &err);
  EXPECT_FALSE(b);
  EXPECT_EQ(holder, getpid());
  EXPECT_TRUE(err.empty()) << err;
  a.reset();
  EXPECT_FALSE(fs::exists(path));
  b = pfcswitch::LockFile::Acquire(path, &holder, &err);
  EXPECT_TRUE(b) << err;
}

TEST(LockFile, KilledHolderReleases) {
  TempDir d;
  const std::string path = d.path() + "/x.lock";
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    long h;
    std::string e;
    auto l = pfcswitch::LockFile::Acquire(path, &h, &e);
    char c = l ? 1 : 0;
    if (write(ready[1], &c, 1) != 1) _exit(2);
    ::pause();
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 1);
  long holder = 0;
  std::string err;
  EXPECT_FALSE(pfcswitch::LockFile::Acquire(path, &holder, &err));
  EXPECT_EQ(holder, child);
  kill(child, SIGKILL);  // a crash: no destructor, the file stays behind
  waitpid(child, nullptr, 0);
  EXPECT_TRUE(fs::exists(path));
  EXPECT_TRUE(pfcswitch::LockFile::Acquire(path, &holder, &err)) << err;
  close(ready[0]);
  close(ready[1]);
}

std::vector<config::PortConfig> Ports() {
  config::PortConfig p0, p1;
  p0.name = "p0";
  p0.device = "net_af_packet0";
  p1.name = "p1";
  p1.device = "net_af_packet1";
  return {p0, p1};
}

TEST(InstanceLocks, SamePrefixRefused) {
  TempDir d;
  pfcswitch::InstanceLocks::Dirs dirs{d.path() + "/dpdk", d.path() + "/pfcswitch"};
  std::string err;
  auto first =
      pfcswitch::InstanceLocks::Acquire(dirs, "sw1", {{"net_af_packet0", "veth0"}}, Ports(), &err);
  ASSERT_TRUE(first) << err;
  EXPECT_FALSE(pfcswitch::InstanceLocks::Acquire(dirs, "sw1", {}, Ports(), &err));
  EXPECT_EQ(err, "file prefix 'sw1' is in use by pfcswitch pid " + std::to_string(getpid()) + " (" +
                     d.path() +
                     "/dpdk/sw1/pfcswitch.lock); give this instance its own --file-prefix");
}

TEST(InstanceLocks, SameInterfaceRefusedNamingThePort) {
  TempDir d;
  pfcswitch::InstanceLocks::Dirs dirs{d.path() + "/dpdk", d.path() + "/pfcswitch"};
  std::string err;
  auto first = pfcswitch::InstanceLocks::Acquire(
      dirs, "sw1", {{"net_af_packet0", "veth0"}, {"net_af_packet1", "veth1"}}, Ports(), &err);
  ASSERT_TRUE(first) << err;
  EXPECT_FALSE(
      pfcswitch::InstanceLocks::Acquire(dirs, "sw2", {{"net_af_packet1", "veth1"}}, Ports(), &err));
  EXPECT_EQ(err.rfind("port p1: interface veth1 is already used by pfcswitch pid " +
                          std::to_string(getpid()),
                      0),
            0u)
      << err;
  // A device no port uses is named as a device.
  EXPECT_FALSE(
      pfcswitch::InstanceLocks::Acquire(dirs, "sw3", {{"net_af_packet7", "veth0"}}, Ports(), &err));
  EXPECT_EQ(err.rfind("device net_af_packet7: interface veth0 is already used", 0), 0u) << err;
  // The refused attempts released their prefix locks; the first instance's
  // files disappear when it goes.
  EXPECT_TRUE(
      pfcswitch::InstanceLocks::Acquire(dirs, "sw2", {{"net_af_packet0", "veth9"}}, Ports(), &err))
      << err;
  first.reset();
  EXPECT_TRUE(fs::is_empty(dirs.ifaces));
}

TEST(InstanceLocks, TelemetrySocketInUseRefused) {
  TempDir d;
  pfcswitch::InstanceLocks::Dirs dirs{d.path() + "/dpdk", d.path() + "/pfcswitch"};
  fs::create_directories(dirs.dpdk_runtime + "/sw1");
  const std::string sock = dirs.dpdk_runtime + "/sw1/dpdk_telemetry.v2";
  int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strcpy(addr.sun_path, sock.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  std::string err;
  EXPECT_FALSE(pfcswitch::InstanceLocks::Acquire(dirs, "sw1", {}, Ports(), &err));
  EXPECT_EQ(err, "file prefix 'sw1': telemetry socket " + sock + " is in use by pid " +
                     std::to_string(getpid()) + "; give this instance its own --file-prefix");
  close(fd);  // a socket nobody listens on is stale: DPDK replaces it
  EXPECT_TRUE(pfcswitch::InstanceLocks::Acquire(dirs, "sw1", {}, Ports(), &err)) << err;
}

}  // namespace
}  // namespace pfc
