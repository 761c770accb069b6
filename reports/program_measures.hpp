#pragma once
// Figures read off a recorded Program and its replay, for reproductions that compare parts
// of an iteration (one layer's time, the activations a forward pass keeps).

#include <cstdint>

#include "models/program.hpp"
#include "sim/simulation_result.hpp"
#include "units/units.hpp"

namespace trainsim::reports {

/// Bytes of `category` live just before the rank's first backward or recompute op: what the
/// forward pass (of every micro batch run before it) keeps for the backward pass.
Bytes live_before_backward(const program::RankProgram& rank, program::MemoryCategory category);

struct LayerTimes {
  Time forward;   ///< first start to last end of the layer's forward ops
  Time backward;  ///< the same for its backward ops, recomputation included
};

/// One transformer layer's forward and backward span in micro batch `micro_batch` (all streams).
/// Throws std::invalid_argument if the Program has no op of that layer.
LayerTimes layer_times(const program::RankProgram& rank, const sim::RankTimeline& timeline,
                       std::int32_t layer, std::int32_t micro_batch = 0);

/// The forward and backward passes of the iteration without the optimizer step: over every
/// recorded rank, the first start to the last end of its forward, backward and recompute ops
/// (all streams, the gradient collectives of the backward pass included), the longest of
/// them. What a timer around a framework's forward and backward calls reads (Bian et al.
/// 2021's "forward + backward time"). Zero for a Program with no such op.
Time forward_backward_time(const program::Program& program, const sim::SimulationResult& result);

}  // namespace trainsim::reports
