// SPDX-License-Identifier: BSD-3-Clause
// The processes of one virtual-clock run split over MPI ranks
// (`mpirun -np N pfcfabric ...`): who this process is and the few
// collective steps the run needs. The only file that includes mpi.h:
// without Open MPI at build time (PFC_HAVE_MPI unset) there is one rank
// and every call is the one-process answer.
//
// MPI is started only when the process was launched by mpirun (Open MPI's
// OMPI_COMM_WORLD_SIZE in the environment): a plain `pfcfabric` run never
// touches it. Only the thread that runs the clock calls MPI (the
// partitions' threads never do), so MPI_THREAD_FUNNELED is what it asks.
//
// Who uses what: pfcfabric_main.cc starts and ends it and places the
// fabric (spec/partition.h PlaceRanks); the virtual clock exchanges the
// frames that crossed between ranks and agrees on each window
// (rank_frames.h); the results are gathered by rank 0 (rank_results.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace pfc::emulator {

class Ranks {
 public:
  // The process's ranks: started by Init, one rank until then.
  static Ranks& Get();

  // Starts MPI when launched by mpirun; false with *err when that fails, or
  // when mpirun started a pfcfabric built without Open MPI.
  bool Init(int* argc, char*** argv, std::string* err);
  // Ends MPI (every rank, once; at exit when Init started it).
  void Finalize();
  // Stops every rank (a failure on one that the others would wait for).
  [[noreturn]] void Abort(int status);

  unsigned rank() const { return rank_; }
  unsigned size() const { return size_; }
  bool distributed() const { return size_ > 1; }
  // The ranks on this machine and this one's place among them (the CPU its
  // clock thread starts on, its share of the memory).
  unsigned local_rank() const { return local_rank_; }
  unsigned local_size() const { return local_size_; }

  // Collective: the least of every rank's v.
  uint64_t Min(uint64_t v) const;
  // Collective: out[per x r .. per x r + per - 1] goes to rank r; returns
  // what every rank sent this one, in rank order.
  std::vector<uint64_t> AllToAll(const std::vector<uint64_t>& out, unsigned per) const;
  // Collective: out[r] goes to rank r, and this one gets sizes[r] bytes
  // from rank r (known from an AllToAll before); returns them in rank
  // order, one buffer.
  std::vector<uint8_t> AllToAllV(const std::vector<std::vector<uint8_t>>& out,
                                 const std::vector<uint64_t>& sizes) const;
  // Point to point, in order between two ranks: rank 0 gathering what the
  // others send it.
  void Send(unsigned to, const std::string& bytes) const;
  std::string Recv(unsigned from) const;

 private:
  Ranks() = default;
  unsigned rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  bool started_ = false;
};

}  // namespace pfc::emulator
