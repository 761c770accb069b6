#pragma once
// The goodput of one training run: a scenario's model on its GPUs, its replayed iteration
// time and the profile's reliability section, put through the checkpoint cost
// (checkpoint.hpp) and the renewal model (goodput.hpp). The checkpoint interval is a whole
// number of steps: the count that gives the best effective share, searched around the
// exact optimum.

#include <cstdint>
#include <string>
#include <vector>

#include "models/model_spec.hpp"
#include "sim/analysis/checkpoint.hpp"
#include "sim/analysis/goodput.hpp"
#include "sim/reliability.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

struct CauseRate {
  std::string name;
  double per_day = 0.0;  ///< interruptions of this job per day
};

struct RunGoodput {
  std::int64_t gpus = 0;
  Time iteration;
  CheckpointSize checkpoint;
  CheckpointTimes times;
  FailureModel failures;  ///< with the stall of the chosen interval
  std::vector<CauseRate> causes;
  double planned_per_day = 0.0;
  double mtti_s = 0.0;  ///< mean time to an unplanned interruption of this job
  double young_s = 0.0;
  double daly_s = 0.0;
  double optimal_s = 0.0;           ///< τ*, the exact optimum (seconds of work)
  std::int64_t interval_steps = 0;  ///< the checkpoint interval used
  double interval_s = 0.0;          ///< interval_steps × iteration
  /// Seconds of work per second of wall time over a long run: τ / E[τ] × (1 − λ_p·c_p).
  double effective = 1.0;
  /// An asynchronous save still writing when the next is due: the job waited this long for it
  /// at each checkpoint (in failures.checkpoint_s).
  double write_wait_s = 0.0;
};

/// Throws std::invalid_argument for gpus < 1 or a zero iteration time.
RunGoodput run_goodput(const ModelSpec& model, std::int64_t gpus, std::int64_t gpus_per_node,
                       Time iteration, const hw::ReliabilitySpec& reliability);

/// The same with the interval fixed at `interval_steps` (≥ 1).
RunGoodput run_goodput_at(const ModelSpec& model, std::int64_t gpus, std::int64_t gpus_per_node,
                          Time iteration, const hw::ReliabilitySpec& reliability,
                          std::int64_t interval_steps);

}  // namespace trainsim::sim
