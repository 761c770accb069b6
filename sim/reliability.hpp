#pragma once
// What interrupts a training job and what a restart and a checkpoint cost on a machine: the
// hardware profile's `reliability:` section. The goodput analysis (sim/analysis/goodput.hpp)
// turns it, with a model's checkpoint size, into the effective share of wall time.

#include <string>
#include <vector>

#include "units/units.hpp"

namespace trainsim::hw {

/// One cause of unplanned interruptions (a faulty GPU, HBM errors, a software bug, …).
struct InterruptionCause {
  std::string name;
  InterruptionRate rate;  ///< per GPU the job holds
};

/// Where a checkpoint goes: each GPU copies its share to host memory, each node writes its
/// GPUs' shares to the file system, and the file system takes all nodes' writes; loading
/// reads the other way.
struct CheckpointPath {
  Bandwidth device_to_host;    ///< per GPU (its PCIe link)
  Bandwidth node_write;        ///< per node, to the file system (its storage NICs)
  Bandwidth node_read;         ///< per node, from the file system
  Bandwidth filesystem_write;  ///< the whole file system, sustained
  Bandwidth filesystem_read;   ///< the whole file system, sustained
  /// Training pauses only for the copy to host memory; the write to storage goes on behind
  /// the next steps (PyTorch DCP's async_save, Megatron's --async-save). Otherwise the step
  /// waits for the whole write.
  bool asynchronous = false;
};

struct ReliabilitySpec {
  std::vector<InterruptionCause> unplanned;  ///< in file order
  /// Planned stops (maintenance, upgrades): announced, so the job checkpoints first and
  /// loses no work, but pays a restart.
  InterruptionRate planned;
  /// From an unplanned fault to the job knowing it (health checks, NCCL's watchdog).
  Time detect;
  /// From knowing it to the first step of the restarted job, less the checkpoint's load:
  /// the scheduler's new allocation, process start, NCCL communicator set-up.
  Time restart;
  CheckpointPath checkpoint;

  InterruptionRate unplanned_total() const {
    InterruptionRate sum;
    for (const InterruptionCause& c : unplanned)
      sum = sum + c.rate;
    return sum;
  }
};

}  // namespace trainsim::hw
