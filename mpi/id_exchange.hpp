#pragma once
// The unique ids that join the members of a communicator (NCCL's ncclUniqueId), exchanged
// between processes: the bootstrap of "one process per GPU, started by MPI".
//
// One collective call per process: each process names the keys of the communicators it is a
// member of and marks those whose id it makes (it is the group's first member); the makers'
// ids are all-gathered over the MPI communicator (keys travel with them, so processes need not
// agree on an order of calls) and each process gets the id of every key it named. No CUDA here:
// the maker is a callback (ncclGetUniqueId in use, a deterministic fake in the tests).

#include <mpi.h>

#include <array>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace trainsim::mpi {

/// The bytes of one id (NCCL_UNIQUE_ID_BYTES).
using IdBytes = std::array<char, 128>;

struct IdRequest {
  std::string key;    ///< names the communicator, the same on every member
  bool make = false;  ///< this process makes the id (exactly one member per key does)
};

/// The ids of `requests`, in their order. Collective over `comm`: every process calls it once,
/// with its own (possibly empty) requests. Throws on every process when a key has two makers or
/// a requested key none, naming the key.
std::vector<IdBytes> exchange_ids(MPI_Comm comm, std::span<const IdRequest> requests,
                                  const std::function<IdBytes()>& make);

}  // namespace trainsim::mpi
