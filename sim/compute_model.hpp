#pragma once
// Time of compute ops on one GPU (parallelism-reference §12): GEMMs from the roofline with
// tile and wave quantization floored by HBM traffic, memory-bound kernels from HBM traffic;
// both at achieved HBM bandwidth (peak x memory_efficiency) and both pay the kernel launch
// overhead.

#include <cstdint>

#include "models/program.hpp"
#include "sim/hardware_profile.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

/// How a GEMM's time was modelled (all efficiencies are fractions in (0, 1]).
struct GemmEstimate {
  Time time;                     ///< modelled duration including launch overhead
  Time math_time;                ///< FLOPs / (peak x efficiency)
  Time memory_time;              ///< min_bytes / (HBM bandwidth x memory_efficiency), the floor
  double efficiency = 0.0;       ///< max_efficiency (the dtype's) x tile x wave x size
  double tile_efficiency = 0.0;  ///< useful share of the issued CTA tiles (§12.2)
  double wave_efficiency = 0.0;  ///< filled share of the waves (§12.3)
  double size_efficiency = 0.0;  ///< gemm.size_efficiency at the GEMM's FLOPs
  std::int64_t tiles = 0;        ///< CTA tiles over all batch entries
  std::int64_t waves = 0;        ///< ceil(tiles / (sm_count x ctas_per_sm))
  bool memory_bound = false;     ///< the bytes floor won
};

/// Models one GEMM. A GEMM with a zero dimension takes only the launch overhead.
/// Throws Infeasible when the GPU has no peak rate for the GEMM's dtype.
GemmEstimate estimate_gemm(const program::Gemm& gemm, const hw::HardwareProfile& hw);

/// (read + written) / (memory_bandwidth x memory_efficiency) + kernel launch.
Time kernel_time(const program::Kernel& kernel, const hw::HardwareProfile& hw);

/// Modelled duration of a GEMM or kernel op on an otherwise idle GPU; zero for other ops.
Time compute_time(const program::Op& op, const hw::HardwareProfile& hw);

}  // namespace trainsim::sim
