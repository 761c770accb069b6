#pragma once
// The processes of one job that share a sweep's items (an MPI job started by mpirun:
// mpi/mpi_process_group.hpp). Code that sweeps many independent items (layouts, scenarios,
// isoefficiency points) takes one, possibly null: null means this process computes every item
// itself. The item results travel as bytes (models/byte_codec.hpp), so every process ends with
// the same results in the same order and the output is the one-process output, byte for byte.

#include <cstddef>
#include <string>
#include <vector>

namespace trainsim {

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  /// This process's index in [0, size()); process 0 writes the outputs.
  virtual std::size_t rank() const = 0;
  virtual std::size_t size() const = 0;
  /// Threads a process uses where its caller asks for "one per core": its node's cores shared
  /// among the group's processes on that node.
  virtual unsigned threads() const = 0;
  /// Every process's `mine`, in rank order. A collective: every process calls it, as often
  /// and in the same order.
  virtual std::vector<std::string> all_gather(const std::string& mine) const = 0;
};

}  // namespace trainsim
