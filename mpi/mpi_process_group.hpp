#pragma once
// The processes of an MPI job as a ProcessGroup (models/process_group.hpp): the world
// communicator of an MpiWorld, whose processes share a sweep's items.

#include <chrono>

#include "models/process_group.hpp"
#include "mpi/mpi_world.hpp"

namespace trainsim::mpi {

class MpiProcessGroup final : public ProcessGroup {
 public:
  /// `world` must outlive the group. A collective (it duplicates the world communicator).
  explicit MpiProcessGroup(const MpiWorld& world);
  ~MpiProcessGroup() override;
  MpiProcessGroup(const MpiProcessGroup&) = delete;
  MpiProcessGroup& operator=(const MpiProcessGroup&) = delete;

  std::size_t rank() const override;
  std::size_t size() const override;
  /// The node's cores over the job's processes on that node (at least one).
  unsigned threads() const override;
  /// MPI_Allgather of the lengths, then MPI_Allgatherv of the bytes (each process's at most
  /// 2 GiB, MPI's int counts: more throws, naming the size).
  std::vector<std::string> all_gather(const std::string& mine) const override;

  /// After an error on this process: whether every process of the job reaches this call
  /// within `wait` (the error was everyone's: the same inputs fail the same way), or some
  /// process is elsewhere (in a collective waiting for this one, or done) and the job must be
  /// ended. A barrier on a communicator of its own, so that it never matches another
  /// collective the others are in.
  bool all_failed_within(std::chrono::milliseconds wait) const;

 private:
  const MpiWorld& world_;
  MPI_Comm errors_ = MPI_COMM_NULL;  ///< the world, duplicated: for all_failed_within alone
};

}  // namespace trainsim::mpi
