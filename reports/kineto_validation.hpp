#pragma once
// `trainsim validate-run --kineto TRACE SCENARIO`: a PyTorch step's measured GPU time per
// kernel family (reports/kineto_breakdown.hpp, mean per ProfilerStep) against the scenario's
// prediction for its rank 0, and the measured median step against the simulated iteration.
//
// The prediction per family sums the rank's ops as the cost model times each on an otherwise
// idle GPU (sim::compute_time): GEMMs; fused attention; LayerNorm/RMSNorm; softmax and the
// cross-entropy; the optimizer's kernels; memsets; every other kernel (element-wise,
// dropout, reductions, embedding) as element-wise. Collectives are not compared (a one-GPU
// trace has none; a multi-GPU trace's exposed time is the step row's business).

#include <string>
#include <vector>

#include "models/program.hpp"
#include "reports/kineto_breakdown.hpp"
#include "reports/run_validation.hpp"
#include "sim/hardware_profile.hpp"
#include "units/units.hpp"

namespace trainsim::reports {

struct KinetoValidation {
  std::string scenario;
  std::string hardware;
  std::string trace;
  std::vector<ValidationRow> by_family;  ///< ops: predicted per iteration / measured per step
  ValidationRow gpu_busy;                ///< the families' sum / the GPU's busy time per step
  ValidationRow step;                    ///< the simulated iteration / the median step
};

/// The family a recorded op's kernels fall in.
inputs::KernelFamily family_of(const program::Op& op);

/// Compares `measured` with rank 0 of `program` on `hardware`; std::invalid_argument when
/// the Program recorded no rank 0 or the trace has no steps.
KinetoValidation validate_kineto(const KinetoBreakdown& measured, const program::Program& program,
                                 const hw::HardwareProfile& hardware, Time simulated_iteration);

std::string format_kineto_validation(const KinetoValidation& v);

}  // namespace trainsim::reports
