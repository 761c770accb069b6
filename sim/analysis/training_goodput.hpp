#pragma once
// One point of `trainsim training-time` under the profile's interruptions: the run's goodput
// (run_goodput.hpp: the checkpoint interval in whole steps, the effective share) at the
// point's GPUs and replayed iteration, the expected wall time of its work in closed form
// (goodput.hpp) and a seeded Monte Carlo of whole runs for its spread.
//
// Each point draws from its own seed, mixed from the base seed and the point's (batch, GPU
// count): the draws do not depend on the order the points are computed in, on how they are
// spread over threads or processes, or on the rest of the grid (the same point in a wider
// grid gets the same runs), and neighbouring points do not share one stream.

#include <cstdint>

#include "models/model_spec.hpp"
#include "sim/analysis/goodput.hpp"
#include "sim/analysis/run_goodput.hpp"
#include "sim/reliability.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

/// How the failure-aware figures are drawn.
struct FailureOptions {
  std::int64_t samples = 1000;  ///< Monte Carlo runs per point
  std::uint64_t seed = 1;       ///< the base seed (point_seed)
};

/// The failure-aware figures of one (batch, GPU count) point.
struct PointGoodput {
  RunGoodput run;                ///< interval_steps, effective, the job's failure model
  double work_s = 0.0;           ///< steps × iteration: the failure-free time
  double expected_wall_s = 0.0;  ///< closed form, at run.interval_s
  MonteCarloRuns monte_carlo;    ///< summary only (wall_s left empty)
  std::uint64_t seed = 0;        ///< the Monte Carlo's seed (point_seed)
  double gpu_hours = 0.0;        ///< GPUs × expected wall hours
};

/// The figures of `steps` steps under `run` (its interval as chosen), the Monte Carlo from
/// `seed` (kept in PointGoodput::seed). Throws as monte_carlo_runs.
PointGoodput run_outcome(const RunGoodput& run, double steps, std::int64_t samples,
                         std::uint64_t seed);

/// The seed of the point at (batch, gpus): splitmix64 mixing of the three.
std::uint64_t point_seed(std::uint64_t base, std::int64_t batch, std::int64_t gpus);

/// The figures of a run of `steps` steps of `iteration` on `gpus` GPUs (`gpus_per_node` per
/// node, for the checkpoint path), at batch `batch` (for its seed). Throws as run_goodput and
/// monte_carlo_runs (std::invalid_argument).
PointGoodput point_goodput(const ModelSpec& model, std::int64_t batch, std::int64_t gpus,
                           std::int64_t gpus_per_node, Time iteration, double steps,
                           const hw::ReliabilitySpec& reliability, const FailureOptions& options);

}  // namespace trainsim::sim
