#pragma once
// The MPI world of this process: MPI_Init on construction, MPI_Finalize on destruction (MPI's
// own global state is the only one), and where this process sits: its world rank (the rank it
// runs), the world size, its node (the shared-memory communicator, MPI_Comm_split_type
// SHARED: processes that can share memory are on one node) and its local rank there, which
// picks its GPU.

#include <mpi.h>

#include <string_view>
#include <vector>

namespace trainsim::mpi {

/// Throws naming `call` and MPI's text for `code` unless it is MPI_SUCCESS.
void check(int code, std::string_view call);

/// Whether `ok` holds on every process of `comm` (an all-reduce: call it on every process).
bool all_processes(MPI_Comm comm, bool ok);

/// Where one process sits in the MPI world.
struct Placement {
  int world_rank = 0;
  int world_size = 1;
  int local_rank = 0;  ///< rank among the processes of this node (its GPU)
  int local_size = 1;  ///< processes on this node
  int node = 0;        ///< index of this node, nodes numbered by their lowest world rank
  int nodes = 1;
  std::vector<int> rank_nodes;  ///< the node of every world rank
};

class MpiWorld {
 public:
  /// Initialises MPI (once per process: a second MpiWorld throws, naming the first).
  MpiWorld(int* argc, char*** argv);
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  const Placement& placement() const { return placement_; }
  MPI_Comm comm() const { return MPI_COMM_WORLD; }
  /// Whether every process of the world passed `ok` (an all-reduce: call it on every process).
  bool all(bool ok) const;
  /// Ends every process of the job (MPI_Abort): for a failure on one process that would leave
  /// the others waiting in a collective.
  [[noreturn]] void abort(int code) const;

 private:
  Placement placement_;
};

}  // namespace trainsim::mpi
