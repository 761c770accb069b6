#pragma once
// The microbenchmark descriptor (style §12): one small struct per benchmark with its name,
// its argument grid (rows with the arguments filled in), a setup that allocates and fills the
// operands of one row and returns the timed body and its verification. The driver
// (timing.hpp, calibrate_main.cpp) owns warm-up, timing, repetitions and output.

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "calibrate/gemm_shapes.hpp"
#include "calibrate/raw_measurements.hpp"

namespace trainsim::calibrate::gpu {

class GroupMembers;
class LocalCommunicators;

/// What every benchmark may use: the grid size, the GPUs, the shapes to add, a log.
struct BenchContext {
  bool quick = false;             ///< a small grid for a smoke run
  int device_count = 0;           ///< GPUs of this node
  std::int64_t l2_bytes = 0;      ///< of device 0: buffers rotate past twice this
  std::vector<GemmShape> shapes;  ///< from --shapes (the scenarios' GEMMs)
  std::ostream* log = nullptr;    ///< progress and skip notes (stderr)
  /// Communicators over devices 0..size-1, created on first use and kept (interference).
  std::function<LocalCommunicators&(int size)> communicators;
  /// The ranks the collectives span and the node of each (one process: this node's GPUs, all
  /// on node 0; under MPI: the world's processes, one GPU each). Empty: `device_count` GPUs
  /// of one node.
  std::vector<int> rank_nodes;
  /// The ranks 0..size-1 of a collective that this process drives, created on first use and
  /// kept (suite nccl). Under MPI every process calls it for the same sizes in the same order.
  std::function<GroupMembers&(int size)> group;
  /// Ranks the collectives span.
  int collective_ranks() const {
    return rank_nodes.empty() ? device_count : static_cast<int>(rank_nodes.size());
  }
};

/// Where one repetition runs: the gate holds each stream and events bracket it there.
struct TimedStream {
  int device = 0;
  cudaStream_t stream = nullptr;
};

/// One row made ready to time. The lambdas hold the operands (shared state they capture).
struct Prepared {
  std::vector<TimedStream> streams;  ///< a repetition's time: the longest of these
  std::function<void()> run;         ///< enqueues one repetition on `streams`
  std::function<bool()> verify;      ///< checks the last run's result against a reference
  std::string algorithm;             ///< recorded in the row (cuBLAS algo, NCCL kind, ...)
  int ops_per_run = 1;               ///< a row's time is a repetition's time / this
  /// Collectives: nccl-tests' bus-bandwidth factor (busbw = algbw · factor; 0 = none); the
  /// driver logs algbw and busbw and appends them to the row's algorithm cell.
  double bus_factor = 0.0;
  /// Rows timed by several processes together (MPI): the slowest process's time of a
  /// repetition (every process then takes the same loop decisions) and a barrier before each
  /// repetition is released. Unset within one process.
  std::function<double(double seconds)> longest;
  std::function<void()> before_release;
};

struct BenchmarkDescriptor {
  std::string name;   ///< "gemm", "memcpy", "all_reduce", ...
  std::string suite;  ///< the --suite that runs it
  std::function<std::vector<RawMeasurement>(const BenchContext&)> grid;
  /// Prepares one grid row; nullptr (after a note on the log) skips it, e.g. when its
  /// operands do not fit in device memory.
  std::function<std::unique_ptr<Prepared>(const RawMeasurement&, BenchContext&)> setup;
};

}  // namespace trainsim::calibrate::gpu
