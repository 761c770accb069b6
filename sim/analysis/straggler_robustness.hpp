#pragma once
// How much one slow GPU costs a layout (`plan --stragglers F`): the layout replayed with one
// GPU's kernels F times as long, at the two places a straggler hurts a layout differently —
// GPU 0 (pipeline stage 0, tensor rank 0, the first replica) and the last GPU (the last stage,
// which also computes the logits and the loss, in the last replica) — and the worse of the
// two. Data-parallel replicas and 1D tensor ranks of a stage meet in a collective every layer
// or every step, so wherever the GPU sits in them it costs the same (sim/replay.hpp,
// stragglers); 2D/3D tensor groups and deep pipelines differ, which is what this ranks.

#include <cstdint>

#include "models/model_spec.hpp"
#include "sim/analysis/layout_space.hpp"
#include "sim/hardware_profile.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

struct StragglerRobustness {
  double factor = 1.0;
  Time first_gpu;  ///< iteration with GPU 0 slow
  Time last_gpu;   ///< iteration with the last GPU slow
  Time worst() const { return first_gpu > last_gpu ? first_gpu : last_gpu; }
  /// worst / `iteration` − 1: the share one slow GPU adds.
  double cost(Time iteration) const { return worst().seconds() / iteration.seconds() - 1.0; }
};

/// Throws std::invalid_argument unless factor ≥ 1, as replay_layout otherwise.
StragglerRobustness straggler_robustness(const ModelSpec& model,
                                         const hw::HardwareProfile& hardware, const Layout& layout,
                                         std::int64_t global_batch, double factor);

}  // namespace trainsim::sim
