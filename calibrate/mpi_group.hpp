#pragma once
// A collective benchmark's group when the calibrator runs one process per GPU under mpirun
// (trainsim-calibrate --mpi): world ranks 0..size-1, as nccl-tests over whole nodes; this
// process drives its own rank on its node-local GPU. The NCCL id is made by rank 0 and handed
// to the members by mpi::exchange_ids; the members' agreement (`all`, `longest`, `barrier`)
// runs over an MPI communicator of the members alone. Built only with MPI.

#include <mpi.h>

#include <optional>
#include <vector>

#include "calibrate/nccl_communicators.hpp"

namespace trainsim::calibrate::gpu {

class MpiGroup final : public GroupMembers {
 public:
  /// Collective over `world`: every process constructs the group of `size` at the same time
  /// (members and the others, which drive no rank of it).
  MpiGroup(MPI_Comm world, int size, int device);
  ~MpiGroup() override;
  MpiGroup(const MpiGroup&) = delete;
  MpiGroup& operator=(const MpiGroup&) = delete;

  int size() const override { return size_; }
  const std::vector<int>& driven() const override { return driven_; }
  ncclComm_t nccl(int) const override { return comm_->get(); }
  const Stream& stream(int) const override { return *stream_; }
  int device(int) const override { return device_; }
  bool all(bool ok) const override;
  double longest(double seconds) const override;
  void barrier() const override;

 private:
  int size_ = 0;
  int device_ = 0;
  std::vector<int> driven_;  // this process's world rank, or none
  MPI_Comm members_ = MPI_COMM_NULL;
  std::optional<NcclCommunicator> comm_;
  std::optional<Stream> stream_;
};

}  // namespace trainsim::calibrate::gpu
