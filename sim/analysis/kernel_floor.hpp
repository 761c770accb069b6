#pragma once
// The first, cheapest floor on a layout's iteration (layout_search.hpp): the kernels one GPU of
// its tensor block runs, summed. No replay: the compute layout's four Programs (layout_estimate:
// d = 1, ZeRO 0, one stage of l layers and m micro batches, l, m in {1, 2}) are built for rank 0
// alone, and the durations its compute stream's GEMMs and kernels take on an idle GPU (what
// the replay gives them before any slowdown) added up. The four sums fit T(l, m) = a + b·l +
// c·m + e·l·m exactly, since every layer and micro batch adds the same kernels, and the floor
// takes it at the layout's largest stage as the compute floor does (the optimizer's part
// divided by DP × CP under ZeRO, the bubble's micro batches at e·L).
//
// Why it is a floor: a replay runs a GPU's compute stream one op at a time, each at least its
// idle duration (concurrent communication only slows it), so no GPU finishes before this sum;
// the compute floor (ReducedFit::compute_floor) is the busiest GPU's replayed sum or the
// replayed time, each at least this. What it saves: a 2D 16 × 16 grid's compute floor replays
// 256 GPUs (about 1 s of one core each on the 1T row), this sum builds one GPU's Programs; the
// search tallies the tensor block's traffic, then replays it, only for the layouts whose
// floors so far leave them at the front.

#include <cstdint>

#include "models/model_spec.hpp"
#include "sim/analysis/layout_estimate.hpp"
#include "sim/analysis/layout_space.hpp"
#include "sim/hardware_profile.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

class KernelFloor {
 public:
  /// Sums rank 0's compute-stream kernels of `compute` (a compute_layout) at l, m in {1, 2}.
  /// Throws Infeasible when the executor rejects its Programs.
  KernelFloor(const ModelSpec& model, const Layout& compute, const hw::HardwareProfile& hardware);

  /// The floor for `layout` (whose compute_layout was summed) at `global_batch`: its
  /// iteration, and a peak as compute_floor's from rank 0's memory in issue order.
  LayoutEstimate floor(const ModelSpec& model, const Layout& layout,
                       std::int64_t global_batch) const;

  /// The sums' fit, seconds at (l, m).
  const Bilinear& busy() const { return busy_s_; }

 private:
  Bilinear busy_s_;
  MemoryFit memory_;
};

}  // namespace trainsim::sim
