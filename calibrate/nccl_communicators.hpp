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

/// Communicators over `devices` (rank i on devices[i], created by a thread of its own), each
/// with its own stream.
class LocalCommunicators {
 public:
  explicit LocalCommunicators(const std::vector<int>& devices);
  int size() const { return static_cast<int>(comms_.size()); }
  const NcclCommunicator& comm(int rank) const { return comms_[static_cast<std::size_t>(rank)]; }
  const Stream& stream(int rank) const { return streams_[static_cast<std::size_t>(rank)]; }
  int device(int rank) const { return comm(rank).device(); }

 private:
  std::vector<NcclCommunicator> comms_;
  std::vector<Stream> streams_;
};

}  // namespace trainsim::calibrate::gpu
