#pragma once
// What a scenario's stragglers cost (issue 25 item 5), in the spirit of ByteDance's straggler
// analysis (arXiv 2505.05713): the slowdown S = T / T_ideal against the same run without them,
// the recorded GPUs whose kernels were stretched (each standing for its class), and the change
// of each part of the critical GPU's time (its own slower compute, and the waits it passes on:
// exposed communication, pipeline bubble).

#include <cstdint>
#include <optional>
#include <vector>

#include "models/program.hpp"
#include "sim/simulation_result.hpp"
#include "units/units.hpp"

namespace trainsim::reports {

struct SlowedGpu {
  program::Rank gpu = 0;          ///< the recorded GPU whose kernels were stretched
  double factor = 1.0;            ///< by the largest factor among the GPUs it stands for
  std::int64_t stands_for = 0;    ///< GPUs of its class (itself included)
  std::int64_t slow_members = 0;  ///< of them, the slow ones
};

struct StragglerCost {
  std::int64_t slow_gpus = 0;
  std::vector<program::Rank> first_slow;  ///< the lowest slow GPU ranks (up to 8)
  Time without;                           ///< the iteration without stragglers
  double slowdown = 1.0;                  ///< S = iteration / without
  std::vector<SlowedGpu> slowed;          ///< recorded GPUs, ascending
  program::Rank critical_gpu = 0;         ///< whose breakdown is compared
  sim::TimeBreakdown with{};              ///< the critical GPU's, with stragglers
  sim::TimeBreakdown without_breakdown{};
  /// A recorded GPU whose kernels were not stretched that waits longest for the slow ones
  /// (the most idle time gained), with its breakdowns; none when every recorded GPU is slowed
  /// (a representative replay whose classes all hold a straggler).
  std::optional<program::Rank> waiting_gpu;
  sim::TimeBreakdown waiting_with{};
  sim::TimeBreakdown waiting_without{};
};

/// `slowdowns`: one factor per world GPU (models/stragglers.hpp); `slow` and `base` the replays
/// of one Program with and without them; `critical_gpu` a recorded GPU.
StragglerCost straggler_cost(const program::Program& program, const std::vector<double>& slowdowns,
                             const sim::SimulationResult& slow, const sim::SimulationResult& base,
                             program::Rank critical_gpu);

}  // namespace trainsim::reports
