// SPDX-License-Identifier: BSD-3-Clause
#include "dataplane/emulator/pfcfabric_plot.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace pfc::pfcfabric {

bool Plot(const std::string& out_dir, const std::string& png, const std::string& title) {
  const char* script = PFC_FABRIC_PLOT;
  if (access(script, X_OK) != 0) {
    std::fprintf(stderr,
                 "pfcfabric: --plot: expected the plot script at %s (the source tree): %s\n",
                 script, std::strerror(errno));
    return false;
  }
  std::vector<std::string> args = {script, out_dir, "-o", png, "--title", title};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  pid_t pid;
  const int err = posix_spawn(&pid, script, nullptr, nullptr, argv.data(), environ);
  int status = 0;
  if (err != 0 || waitpid(pid, &status, 0) < 0) {
    std::fprintf(stderr,
                 "pfcfabric: --plot: cannot run %s: %s (it needs /usr/bin/python3 with "
                 "python3-matplotlib)\n",
                 script, std::strerror(err != 0 ? err : errno));
    return false;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "pfcfabric: --plot: %s failed (%s %d), no %s\n", script,
                 WIFEXITED(status) ? "exit" : "signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), png.c_str());
    return false;
  }
  return true;
}

}  // namespace pfc::pfcfabric
