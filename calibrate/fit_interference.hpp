#pragma once
// interference.compute_slowdown_during_comm from GEMMs timed while a collective runs beside
// them: the replay runs compute at 1 / (1 + slowdown) of its speed while a collective is
// active on the GPU, so a row gives slowdown = measured / (modelled GEMM alone) - 1.

#include <vector>

#include "calibrate/fit_summary.hpp"
#include "calibrate/raw_measurements.hpp"
#include "sim/hardware_profile.hpp"

namespace trainsim::calibrate {

/// Fits interference.compute_slowdown_during_comm into `profile` from gemm_during_collective
/// rows (the median over the fitting rows, floored at 0). Call after fit_gemm: the GEMM alone
/// is the profile's model. The collective is assumed to cover the whole GEMM, as the
/// benchmark arranges. Throws Infeasible without fitting rows.
FitSummary fit_interference(const std::vector<const RawMeasurement*>& rows,
                            hw::HardwareProfile& profile);

}  // namespace trainsim::calibrate
