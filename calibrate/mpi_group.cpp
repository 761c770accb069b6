#include "calibrate/mpi_group.hpp"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

#include "mpi/id_exchange.hpp"
#include "mpi/mpi_world.hpp"

namespace trainsim::calibrate::gpu {

MpiGroup::MpiGroup(MPI_Comm world, int size, int device) : size_(size), device_(device) {
  int rank = 0;
  mpi::check(MPI_Comm_rank(world, &rank), "MPI_Comm_rank");
  const bool member = rank < size;
  if (member) driven_.push_back(rank);
  mpi::check(MPI_Comm_split(world, member ? 0 : MPI_UNDEFINED, rank, &members_), "MPI_Comm_split");
  static_assert(sizeof(ncclUniqueId) == sizeof(mpi::IdBytes), "NCCL_UNIQUE_ID_BYTES changed");
  std::vector<mpi::IdRequest> requests;
  if (member) requests.push_back({fmt::format("calibrate:0..{}", size - 1), rank == 0});
  const std::vector<mpi::IdBytes> ids = mpi::exchange_ids(world, requests, [] {
    const ncclUniqueId id = new_unique_id();
    mpi::IdBytes bytes{};
    std::memcpy(bytes.data(), &id, bytes.size());
    return bytes;
  });
  if (!member) return;
  ncclUniqueId id{};
  std::memcpy(&id, ids.front().data(), sizeof id);
  comm_.emplace(id, size, rank, device);
  stream_.emplace(device);
}

MpiGroup::~MpiGroup() {
  if (members_ != MPI_COMM_NULL) MPI_Comm_free(&members_);
}

bool MpiGroup::all(bool ok) const {
  return mpi::all_processes(members_, ok);
}

double MpiGroup::longest(double seconds) const {
  double most = 0.0;
  mpi::check(MPI_Allreduce(&seconds, &most, 1, MPI_DOUBLE, MPI_MAX, members_), "MPI_Allreduce");
  return most;
}

void MpiGroup::barrier() const {
  mpi::check(MPI_Barrier(members_), "MPI_Barrier");
}

}  // namespace trainsim::calibrate::gpu
