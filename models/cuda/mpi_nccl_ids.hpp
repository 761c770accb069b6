#pragma once
// NCCL unique ids for ranks that are processes started by MPI (one per GPU, across nodes): the
// first member of each communicator makes its id (ncclGetUniqueId) and mpi::exchange_ids hands
// it to the other members. Built only with MPI (TRAINSIM_MPI_FOUND).

#include <mpi.h>

#include <span>
#include <vector>

#include "models/cuda/nccl_communicator.hpp"

namespace trainsim::cuda {

class MpiNcclIds final : public NcclIdSource {
 public:
  /// Over `comm` (MPI_COMM_WORLD: world rank = the executor's rank).
  explicit MpiNcclIds(MPI_Comm comm) : comm_(comm) {}
  /// Collective: every process of `comm` calls it once per set of communicators.
  std::vector<NcclUniqueId> ids_for(std::span<const NcclIdRequest> requests) override;

 private:
  MPI_Comm comm_;
};

}  // namespace trainsim::cuda
