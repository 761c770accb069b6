#pragma once
// Launch overhead: 100 empty kernels queued back to back behind the timing gate; a row's time
// is one kernel's share (the device-side cost per kernel that the replay's kernel_launch
// models when the host runs ahead).

#include "calibrate/benchmark.hpp"

namespace trainsim::calibrate::gpu {

/// The "launch" benchmark (suite launch).
BenchmarkDescriptor launch_benchmark();

}  // namespace trainsim::calibrate::gpu
