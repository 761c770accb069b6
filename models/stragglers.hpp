#pragma once
// Slow GPUs (a scenario's `stragglers:`): thermal throttling, a degraded HBM stack, a noisy
// neighbour make one GPU's kernels take longer than its peers'. The replay stretches the
// kernels of each slow GPU (sim/replay.hpp), and every collective and pipeline transfer it
// joins waits for it.

#include <cstdint>
#include <optional>
#include <vector>

namespace trainsim {

struct StragglerSpec {
  std::optional<std::int64_t> rank;  ///< one slow GPU, by global rank
  /// How much longer a slow GPU's kernels take (1.2: 20 % longer).
  double factor = 1.2;
  /// Each GPU is slow with this probability, drawn from `seed` (besides `rank`).
  double fraction = 0.0;
  std::uint64_t seed = 1;

  bool any() const { return rank.has_value() || fraction > 0.0; }
};

/// Every GPU's kernel time factor: 1, or `factor` for the slow ones. The draw is
/// std::mt19937_64(seed)'s top 53 bits per GPU in rank order (u < fraction: slow), so a seed
/// gives the same GPUs anywhere. Empty when `spec` has no straggler.
std::vector<double> kernel_slowdowns(const StragglerSpec& spec, std::int64_t gpus);

}  // namespace trainsim
