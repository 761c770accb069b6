#pragma once
// `trainsim exec SCENARIO --backend cuda --time`: one rank's training iteration run by the
// executor on the cuda backend on this GPU, warm-up iterations first, then each op and the
// iteration timed with cudaEvents over several repetitions (medians). Collectives whose
// group's other GPUs are absent are skipped and listed.

#include <cstdint>

#include "models/measured_run.hpp"
#include "models/scenario.hpp"

namespace trainsim::cuda {

struct TimedRunOptions {
  std::int64_t warmup = 2;
  std::int64_t repetitions = 5;
  std::uint64_t seed = 1;
};

/// Rank 0 of `scenario` (1D tensor parallelism, data parallelism with ZeRO 0 to 3,
/// recomputation and sequence parallelism; no pipeline yet: throws Infeasible naming the
/// plan's value otherwise). Weights are random N(0, 0.02) (LayerNorm gains around 1), tokens
/// uniform: never zeros, which would make GEMMs draw less power and run faster.
MeasuredRun run_timed(const Scenario& scenario, const TimedRunOptions& options);

}  // namespace trainsim::cuda
