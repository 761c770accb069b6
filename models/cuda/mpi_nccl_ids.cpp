#include "models/cuda/mpi_nccl_ids.hpp"

#include "mpi/id_exchange.hpp"

namespace trainsim::cuda {

std::vector<NcclUniqueId> MpiNcclIds::ids_for(std::span<const NcclIdRequest> requests) {
  std::vector<mpi::IdRequest> asked;
  for (const NcclIdRequest& r : requests)
    asked.push_back({r.key, r.first});
  return mpi::exchange_ids(comm_, asked, [] { return new_nccl_unique_id(); });
}

}  // namespace trainsim::cuda
