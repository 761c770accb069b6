#pragma once
// gpu.attention from fused attention calls (rows `attention` and `attention_backward`: what
// calibrate/pytorch/kernels_raw.py makes of kernels.py's cuDNN rows), through the
// simulator's own model: time = causal FLOPs / (bf16 peak x efficiency) + fixed time +
// launch, linear in (1 / efficiency, fixed time), solved per pass by least squares on relative
// error. The fixed time is what a short call cannot hide (pipeline fill and drain, the causal
// last wave): one efficiency alone read 0.43 of peak for a 34-GFLOP cuDNN forward and 0.62 for
// a 550-GFLOP one on an H100. A backward row's element-wise side kernels (the dO·O pre-pass,
// the dQ conversion) are charged as the replay records them, the main kernel fitted on the rest.

#include <vector>

#include "calibrate/fit_summary.hpp"
#include "calibrate/raw_measurements.hpp"
#include "sim/hardware_profile.hpp"

namespace trainsim::calibrate {

/// Fits gpu.attention's efficiency and fixed_time from the `attention` rows and
/// backward_efficiency and backward_fixed_time from the `attention_backward` rows (verified
/// ones); a pass without rows keeps the base's figures (a profile without gpu.attention gets
/// the base's zero figures for it, which the fit refuses). Throws Infeasible when a pass has
/// rows of fewer than two distinct FLOP counts or its efficiency leaves (0, 1]; a negative
/// fixed time is refitted as zero.
FitSummary fit_attention(const std::vector<const RawMeasurement*>& rows,
                         hw::HardwareProfile& profile);

/// The simulator's time for an attention row on `profile` (a backward row: the pre-pass
/// D = rowsum(dO ∘ O), the main kernel and the dQ conversion, as the replay has them).
Time predict_attention_row(const RawMeasurement& row, const hw::HardwareProfile& profile);

}  // namespace trainsim::calibrate
