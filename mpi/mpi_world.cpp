#include "mpi/mpi_world.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace trainsim::mpi {

void check(int code, std::string_view call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(fmt::format("{} failed: {}", call, std::string_view(text, length)));
}

bool all_processes(MPI_Comm comm, bool ok) {
  int mine = ok ? 1 : 0;
  int every = 0;
  check(MPI_Allreduce(&mine, &every, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  return every == 1;
}

MpiWorld::MpiWorld(int* argc, char*** argv) {
  int initialised = 0;
  check(MPI_Initialized(&initialised), "MPI_Initialized");
  if (initialised) throw std::logic_error("MpiWorld: MPI is already initialised in this process");
  check(MPI_Init(argc, argv), "MPI_Init");
  // Errors come back as codes (thrown as exceptions) instead of aborting the job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  check(MPI_Comm_rank(MPI_COMM_WORLD, &placement_.world_rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &placement_.world_size), "MPI_Comm_size");
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, placement_.world_rank,
                            MPI_INFO_NULL, &node),
        "MPI_Comm_split_type");
  check(MPI_Comm_rank(node, &placement_.local_rank), "MPI_Comm_rank(node)");
  check(MPI_Comm_size(node, &placement_.local_size), "MPI_Comm_size(node)");
  // The node's leader (local rank 0, the lowest world rank of the node) names the node;
  // nodes are numbered by their leaders' world ranks, whatever order mpirun placed them in.
  int leader = placement_.world_rank;
  check(MPI_Bcast(&leader, 1, MPI_INT, 0, node), "MPI_Bcast(node)");
  MPI_Comm_free(&node);
  const int leads = placement_.local_rank == 0 ? 1 : 0;
  std::vector<int> leaders(static_cast<std::size_t>(placement_.world_size));
  check(MPI_Allgather(&leads, 1, MPI_INT, leaders.data(), 1, MPI_INT, MPI_COMM_WORLD),
        "MPI_Allgather");
  placement_.node = static_cast<int>(std::count(leaders.begin(), leaders.begin() + leader, 1));
  placement_.nodes = static_cast<int>(std::count(leaders.begin(), leaders.end(), 1));
  placement_.rank_nodes.resize(leaders.size());
  check(MPI_Allgather(&placement_.node, 1, MPI_INT, placement_.rank_nodes.data(), 1, MPI_INT,
                      MPI_COMM_WORLD),
        "MPI_Allgather(node)");
}

MpiWorld::~MpiWorld() {
  MPI_Finalize();
}

bool MpiWorld::all(bool ok) const {
  return all_processes(MPI_COMM_WORLD, ok);
}

void MpiWorld::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();  // MPI_Abort does not return; this tells the compiler so
}

}  // namespace trainsim::mpi
