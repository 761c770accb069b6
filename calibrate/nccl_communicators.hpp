#pragma once
// NCCL communicators of one process over its local GPUs: the reusable unit that the
// collective benchmarks use and that the executor's cuda backend (models/cuda/, which skips
// collectives with other members today) can take next.
//
// Two ways in, as NCCL documents them: `NcclCommunicator` is one rank's communicator, created
// by the thread that drives that GPU from a unique id the process shares in memory (one
// thread per GPU, ncclCommInitRank); `LocalCommunicators` creates all of a device list's
// ranks that way, a thread per GPU, and owns one stream per rank. Collectives over several
// ranks issued from one thread (as nccl-tests with -g) go between `GroupCall`'s start and end.
// `GroupMembers` is what the collective benchmarks see: the ranks this process drives, all of
// a LocalCommunicators or, under MPI, one process's own (mpi_group.hpp).

#include <nccl.h>

#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "calibrate/gpu_resources.hpp"

namespace trainsim::calibrate::gpu {

inline void check(ncclResult_t code, std::string_view call) {
  cuda::throw_if_failed(static_cast<int>(code), call, ncclGetErrorString(code));
}

/// "2.28.3" from ncclGetVersion.
std::string nccl_version();

/// A fresh id, shared by the ranks of one communicator (within the process: copy it).
ncclUniqueId new_unique_id();

/// One rank's communicator on `device`.
class NcclCommunicator {
 public:
  /// Blocks until all `ranks` ranks joined (call from each rank's thread).
  NcclCommunicator(const ncclUniqueId& id, int ranks, int rank, int device);
  ncclComm_t get() const { return comm_.get(); }
  int device() const { return comm_.device(); }

 private:
  static void destroy(ncclComm_t c) { ncclCommDestroy(c); }
  Owned<ncclComm_t, destroy> comm_;
};

/// ncclGroupStart / ncclGroupEnd around the calls of one scope (several ranks from one thread).
class GroupCall {
 public:
  GroupCall() { check(ncclGroupStart(), "ncclGroupStart"); }
  GroupCall(const GroupCall&) = delete;
  GroupCall& operator=(const GroupCall&) = delete;
  /// Ends the group; reports its failure unless another exception is already unwinding.
  ~GroupCall() noexcept(false) {
    const ncclResult_t result = ncclGroupEnd();
    if (std::uncaught_exceptions() == 0) check(result, "ncclGroupEnd");
  }
};

/// The ranks of one communicator that this process drives, each with its communicator, stream
/// and device: all of them (one process over its node's GPUs: LocalCommunicators) or its own
/// (one process per GPU under MPI: MpiGroup, mpi_group.hpp). A collective benchmark issues
/// the calls of the ranks it drives and agrees with the other processes through `all` and
/// `longest` (no-ops within one process), so that every process takes the same branches.
class GroupMembers {
 public:
  virtual ~GroupMembers() = default;
  virtual int size() const = 0;                        ///< ranks of the communicator
  virtual const std::vector<int>& driven() const = 0;  ///< ranks this process drives
  virtual ncclComm_t nccl(int rank) const = 0;         ///< for a driven rank
  virtual const Stream& stream(int rank) const = 0;    ///< for a driven rank
  virtual int device(int rank) const = 0;              ///< for a driven rank
  /// Whether `ok` holds on every process of the communicator.
  virtual bool all(bool ok) const { return ok; }
  /// The largest `seconds` over the processes (a repetition lasts until its last rank ends).
  virtual double longest(double seconds) const { return seconds; }
  /// Waits for every process of the communicator (before a repetition is released).
  virtual void barrier() const {}
};

/// Communicators over `devices` (rank i on devices[i], created by a thread of its own), each
/// with its own stream.
class LocalCommunicators final : public GroupMembers {
 public:
  explicit LocalCommunicators(const std::vector<int>& devices);
  int size() const override { return static_cast<int>(comms_.size()); }
  const std::vector<int>& driven() const override { return ranks_; }
  ncclComm_t nccl(int rank) const override { return comm(rank).get(); }
  const NcclCommunicator& comm(int rank) const { return comms_[static_cast<std::size_t>(rank)]; }
  const Stream& stream(int rank) const override { return streams_[static_cast<std::size_t>(rank)]; }
  int device(int rank) const override { return comm(rank).device(); }

 private:
  std::vector<NcclCommunicator> comms_;
  std::vector<Stream> streams_;
  std::vector<int> ranks_;  // 0..size-1: every rank is driven here
};

}  // namespace trainsim::calibrate::gpu
