#pragma once
// memory_efficiency and kernel_launch from copy, element-wise and empty-kernel rows, through
// the simulator's own kernel model: time = bytes moved / (memory_bandwidth x efficiency) +
// launch, linear in (1 / efficiency, launch), solved by least squares on relative error.

#include <vector>

#include "calibrate/fit_summary.hpp"
#include "calibrate/raw_measurements.hpp"
#include "sim/hardware_profile.hpp"

namespace trainsim::calibrate {

/// Fits gpu.memory_efficiency and gpu.kernel_launch into `profile` from `rows` (memcpy,
/// elementwise and launch rows, verified ones only). Throws Infeasible when the rows cannot
/// determine both (fewer than two distinct byte counts) or the fit leaves (0, 1].
FitSummary fit_memory(const std::vector<const RawMeasurement*>& rows, hw::HardwareProfile& profile);

/// The simulator's time for a memory row (memcpy, elementwise or launch) on `profile`.
Time predict_memory_row(const RawMeasurement& row, const hw::HardwareProfile& profile);

}  // namespace trainsim::calibrate
