#pragma once
// What one replay of a Program on a modelled cluster produced: when every op ran, memory over
// time per GPU, and where each GPU's time went. Reporters (reports/) read this; nothing here
// formats output.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/program.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

/// Start and end of one op; both are Time::max() for an op that never ran (see `stuck`). A
/// send or receive starts when its transfer begins (both sides posted), not when its stream
/// reached it.
struct OpTiming {
  Time start;
  Time end;
};

/// A stretch of a rank's host thread (with a host model: hw::HostSpec): issuing ops, or
/// waiting at a HostSync for its GPU.
struct HostSpan {
  Time start;
  Time end;
  program::OpIndex sync = -1;  ///< the HostSync waited at; -1 for issuing
};

/// Timings parallel to RankProgram::ops of the same recorded rank. A HostSync op has no
/// timing of its own (Time::max()): the host's waits are in `host`.
struct RankTimeline {
  program::Rank rank = 0;
  /// When its last op ended (zero if none ran): kept without the op timings too.
  Time finished = Time::zero();
  std::vector<OpTiming> ops;
  std::vector<HostSpan> host;  ///< in time order; empty without a host model
};

using MemoryByCategory = std::array<Bytes, program::kMemoryCategoryCount>;

struct MemoryPoint {
  Time at;
  MemoryByCategory live{};  ///< bytes live per category just after `at`
};

struct RankMemory {
  program::Rank rank = 0;
  Bytes peak;
  Time peak_at;
  MemoryByCategory at_peak{};
  program::OpIndex peak_op = -1;      ///< the allocation that reached the peak (-1: none)
  std::vector<MemoryPoint> timeline;  ///< one point per time the live total changed
};

/// Where one GPU's iteration went. The fields add up to the iteration time: compute-stream
/// busy time split by phase, then compute-stream idle time attributed to what it waited on.
struct TimeBreakdown {
  Time compute;    ///< forward and backward kernels (not recomputation)
  Time recompute;  ///< forward kernels re-run during backward
  Time optimizer;  ///< optimizer-step kernels
  std::array<Time, program::kGroupKindCount>
      exposed_comm{};  ///< idle waiting on TP, DP, embedding and optimizer collectives
                       ///< (from this rank's post: a wait for peers counts); PP: on a running
                       ///< pipeline transfer
  Time bubble;         ///< idle waiting on another pipeline stage (to post its side of a
                       ///< transfer)
  Time host;           ///< idle with the next kernel ready but not yet issued by the host
  Time other;          ///< idle for any other reason (launch gaps, end of iteration skew)
};

/// An op that never ran, and why (a deadlock in a schedule is a bug to report, not a hang).
struct StuckOp {
  program::Rank rank = 0;
  program::OpIndex op = 0;
  std::string reason;
};

struct SimulationResult {
  Time iteration_time;                   ///< last op end over all recorded ranks
  std::vector<RankTimeline> timelines;   ///< parallel to Program::ranks
  std::vector<RankMemory> memory;        ///< parallel to Program::ranks
  std::vector<TimeBreakdown> breakdown;  ///< parallel to Program::ranks
  /// Parallel to Program::ranks: each recorded rank's tensor-core work
  /// (program::Op::tensor_core_flops summed), counted once per GPU it stands for in HFU.
  std::vector<Flops> tensor_core_flops;
  std::int64_t events_processed = 0;
  /// Nodes each replayed node stood for (sim/node_fold.hpp); 1 when the replay was not folded.
  std::int32_t fold_run = 1;
  std::vector<StuckOp> stuck;
};

}  // namespace trainsim::sim
