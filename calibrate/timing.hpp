#pragma once
// The driver's timing of one prepared row (style §13): separate warm-up and timed loops, a
// minimum of repetitions and of timed duration, CUDA events, the median. Every repetition is
// issued behind the executor's gate kernel (kernels::hold) on each of its streams and released
// from the host once issued, so host launch gaps are not timed.

#include <cstdint>
#include <string>

#include "calibrate/benchmark.hpp"
#include "calibrate/gpu_resources.hpp"
#include "units/units.hpp"

namespace trainsim::calibrate::gpu {

struct TimingPolicy {
  int warmup = 5;
  int min_repetitions = 20;
  int max_repetitions = 2000;
  double min_timed_s = 0.1;  ///< repetitions continue until their sum reaches this

  static TimingPolicy quick() { return {2, 5, 200, 0.005}; }
};

struct Timing {
  Time median;
  std::int64_t repetitions = 0;
  bool verified = false;
  std::string note;  ///< why the check could not run (then verified is false)
};

/// Warm-up, verification, then the timed loop. A check that fails on a CUDA error (its
/// reference buffers may not fit beside the operands) leaves the row unverified, not lost.
Timing time_prepared(const Prepared& p, const TimingPolicy& policy, const MappedFlag& gate);

}  // namespace trainsim::calibrate::gpu
