#pragma once
// memory_efficiency and kernel_launch from copy and empty-kernel rows, and the element-wise
// kernels' share of HBM bandwidth (gpu.kernels.elementwise) from element-wise rows, through
// the simulator's own kernel model: time = bytes moved / (memory_bandwidth x efficiency) +
// launch, linear in (1 / efficiency, launch), solved by least squares on relative error.

#include <vector>

#include "calibrate/fit_summary.hpp"
#include "calibrate/raw_measurements.hpp"
#include "sim/hardware_profile.hpp"

namespace trainsim::calibrate {

/// Fits gpu.memory_efficiency and gpu.kernel_launch into `profile` from `rows` (memcpy,
/// elementwise and launch rows, verified ones only): from the copies and empty kernels, and
/// gpu.kernels.elementwise from the element-wise rows with that launch; without copies of two
/// sizes, one efficiency from all rows (memory_efficiency; a base figure for the element-wise
/// class is dropped). Throws Infeasible when the rows cannot determine both (fewer than two
/// distinct byte counts) or a fitted efficiency leaves (0, 1].
FitSummary fit_memory(const std::vector<const RawMeasurement*>& rows, hw::HardwareProfile& profile);

/// The simulator's time for a memory row (memcpy, elementwise or launch) on `profile`.
Time predict_memory_row(const RawMeasurement& row, const hw::HardwareProfile& profile);

}  // namespace trainsim::calibrate
