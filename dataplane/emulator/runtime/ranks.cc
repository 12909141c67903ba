// SPDX-License-Identifier: BSD-3-Clause
// The run's MPI ranks (ranks.h).
#include "dataplane/emulator/runtime/ranks.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

#ifdef PFC_HAVE_MPI
#include <mpi.h>
#endif

namespace pfc::emulator {
namespace {

unsigned EnvUnsigned(const char* name, unsigned dflt) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? static_cast<unsigned>(std::strtoul(v, nullptr, 10)) : dflt;
}

}  // namespace

Ranks& Ranks::Get() {
  static Ranks r;
  return r;
}

bool Ranks::Init(int* argc, char*** argv, std::string* err) {
  // Launched by mpirun: Open MPI tells each process its world here.
  if (EnvUnsigned("OMPI_COMM_WORLD_SIZE", 1) <= 1) return true;
#ifdef PFC_HAVE_MPI
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    *err = "MPI_Init_thread failed";
    return false;
  }
  started_ = true;
  std::atexit([] { Ranks::Get().Finalize(); });
  int r = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  rank_ = static_cast<unsigned>(r);
  size_ = static_cast<unsigned>(n);
  local_rank_ = EnvUnsigned("OMPI_COMM_WORLD_LOCAL_RANK", 0);
  local_size_ = EnvUnsigned("OMPI_COMM_WORLD_LOCAL_SIZE", 1);
  return true;
#else
  (void)argc;
  (void)argv;
  *err =
      "started by mpirun, but this pfcfabric was built without Open MPI (install "
      "libopenmpi-dev and rebuild)";
  return false;
#endif
}

void Ranks::Finalize() {
#ifdef PFC_HAVE_MPI
  if (!started_) return;
  started_ = false;
  MPI_Finalize();
#endif
}

void Ranks::Abort(int status) {
#ifdef PFC_HAVE_MPI
  if (started_) MPI_Abort(MPI_COMM_WORLD, status);
#endif
  std::exit(status);
}

#ifdef PFC_HAVE_MPI
namespace {
uint64_t Reduce(uint64_t v, MPI_Op op) {
  uint64_t out = v;
  MPI_Allreduce(&v, &out, 1, MPI_UINT64_T, op, MPI_COMM_WORLD);
  return out;
}
}  // namespace
#endif

uint64_t Ranks::Min(uint64_t v) const {
#ifdef PFC_HAVE_MPI
  if (started_) return Reduce(v, MPI_MIN);
#endif
  return v;
}

std::vector<uint64_t> Ranks::AllToAll(const std::vector<uint64_t>& out, unsigned per) const {
#ifdef PFC_HAVE_MPI
  if (started_) {
    std::vector<uint64_t> in(out.size());
    MPI_Alltoall(out.data(), static_cast<int>(per), MPI_UINT64_T, in.data(), static_cast<int>(per),
                 MPI_UINT64_T, MPI_COMM_WORLD);
    return in;
  }
#endif
  (void)per;
  return out;
}

std::vector<uint8_t> Ranks::AllToAllV(const std::vector<std::vector<uint8_t>>& out,
                                      const std::vector<uint64_t>& sizes) const {
#ifdef PFC_HAVE_MPI
  if (started_) {
    // A window's frames are far below 2 GB a rank (int counts).
    std::vector<int> sc(size_), rc(size_), sd(size_), rd(size_);
    std::vector<uint8_t> send, in;
    for (unsigned r = 0; r < size_; r++) {
      sd[r] = static_cast<int>(send.size());
      sc[r] = r < out.size() ? static_cast<int>(out[r].size()) : 0;
      if (sc[r] != 0) send.insert(send.end(), out[r].begin(), out[r].end());
    }
    size_t total = 0;
    for (unsigned r = 0; r < size_; r++) {
      rd[r] = static_cast<int>(total);
      rc[r] = static_cast<int>(sizes[r]);
      total += sizes[r];
    }
    in.resize(total);
    MPI_Alltoallv(send.data(), sc.data(), sd.data(), MPI_BYTE, in.data(), rc.data(), rd.data(),
                  MPI_BYTE, MPI_COMM_WORLD);
    return in;
  }
#endif
  (void)sizes;
  return out.empty() ? std::vector<uint8_t>{} : out[0];
}

void Ranks::Send(unsigned to, const std::string& bytes) const {
#ifdef PFC_HAVE_MPI
  if (!started_) return;
  // Long messages in pieces of at most INT_MAX bytes, after their length.
  const uint64_t n = bytes.size();
  MPI_Send(&n, 1, MPI_UINT64_T, static_cast<int>(to), 0, MPI_COMM_WORLD);
  constexpr uint64_t kPiece = std::numeric_limits<int>::max();
  for (uint64_t off = 0; off < n; off += kPiece)
    MPI_Send(bytes.data() + off, static_cast<int>(std::min(kPiece, n - off)), MPI_BYTE,
             static_cast<int>(to), 0, MPI_COMM_WORLD);
#else
  (void)to;
  (void)bytes;
#endif
}

std::string Ranks::Recv(unsigned from) const {
  std::string out;
#ifdef PFC_HAVE_MPI
  if (!started_) return out;
  uint64_t n = 0;
  MPI_Recv(&n, 1, MPI_UINT64_T, static_cast<int>(from), 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  out.resize(n);
  constexpr uint64_t kPiece = std::numeric_limits<int>::max();
  for (uint64_t off = 0; off < n; off += kPiece)
    MPI_Recv(out.data() + off, static_cast<int>(std::min(kPiece, n - off)), MPI_BYTE,
             static_cast<int>(from), 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#else
  (void)from;
#endif
  return out;
}

}  // namespace pfc::emulator
