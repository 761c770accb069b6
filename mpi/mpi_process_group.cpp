#include "mpi/mpi_process_group.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <thread>

namespace trainsim::mpi {

MpiProcessGroup::MpiProcessGroup(const MpiWorld& world) : world_(world) {
  check(MPI_Comm_dup(world_.comm(), &errors_), "MPI_Comm_dup");
}

MpiProcessGroup::~MpiProcessGroup() {
  if (errors_ != MPI_COMM_NULL) MPI_Comm_free(&errors_);
}

bool MpiProcessGroup::all_failed_within(std::chrono::milliseconds wait) const {
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Ibarrier(errors_, &request) != MPI_SUCCESS) return false;
  const auto until = std::chrono::steady_clock::now() + wait;
  while (std::chrono::steady_clock::now() < until) {
    int done = 0;
    if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return false;
    if (done != 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;  // the request stays posted: the job is ended next
}

std::size_t MpiProcessGroup::rank() const {
  return static_cast<std::size_t>(world_.placement().world_rank);
}

std::size_t MpiProcessGroup::size() const {
  return static_cast<std::size_t>(world_.placement().world_size);
}

unsigned MpiProcessGroup::threads() const {
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  return std::max(1U, cores / static_cast<unsigned>(world_.placement().local_size));
}

std::vector<std::string> MpiProcessGroup::all_gather(const std::string& mine) const {
  // Every length first, so that a process over MPI's int counts fails on every process.
  const auto length = static_cast<std::int64_t>(mine.size());
  std::vector<std::int64_t> lengths(size());
  check(MPI_Allgather(&length, 1, MPI_INT64_T, lengths.data(), 1, MPI_INT64_T, world_.comm()),
        "MPI_Allgather(lengths)");
  std::vector<int> counts(size());
  std::vector<int> offsets(size());
  std::int64_t total = 0;
  for (std::size_t p = 0; p < size(); ++p) {
    if (lengths[p] > std::numeric_limits<int>::max() ||
        total + lengths[p] > std::numeric_limits<int>::max()) {
      throw std::runtime_error(fmt::format(
          "process {} has {} bytes of results to share ({} before it): more than MPI's 2 GiB "
          "in one exchange; split the sweep",
          p, lengths[p], total));
    }
    counts[p] = static_cast<int>(lengths[p]);
    offsets[p] = static_cast<int>(total);
    total += lengths[p];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  check(MPI_Allgatherv(mine.data(), counts[rank()], MPI_CHAR, all.data(), counts.data(),
                       offsets.data(), MPI_CHAR, world_.comm()),
        "MPI_Allgatherv(results)");
  std::vector<std::string> out(size());
  for (std::size_t p = 0; p < size(); ++p)
    out[p] = all.substr(static_cast<std::size_t>(offsets[p]), static_cast<std::size_t>(counts[p]));
  return out;
}

}  // namespace trainsim::mpi
