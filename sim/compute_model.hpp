#pragma once
// Time of compute ops on one GPU (parallelism-reference §12): GEMMs from the roofline with
// tile and wave quantization floored by HBM traffic, memory-bound kernels from HBM traffic at
// their class's achieved share of HBM bandwidth; both pay the kernel launch overhead.
//
// GEMMs, with the profile's candidate tiles (gpu.gemm.candidate_tiles), as cuBLAS's heuristic
// chooses them: for every candidate CTA tile t = tm x tn and split-K factor s (1 to
// max_split_k), with P the dtype's peak, e the dtype's max_efficiency, S the SMs x
// ctas_per_sm CTA slots, B_op the operand bandwidth, E the element bytes and k0 the per-CTA
// overhead in units of k:
//   ctas   = ceil(m/tm) · ceil(n/tn) · batch · s,      waves = ceil(ctas / S)
//   r(t)   = min(1, B_op · 2·tm·tn / ((tm + tn)·E) / (P·e))   (operand feed: reuse per load)
//   t_cta  = 2·tm·tn · (ceil(k/s) + k0) / (P·e·r(t) / S)
//   math   = waves · t_cta
//   reduce = s > 1 ? 2·s·m·n·batch·4 B / (HBM · memory_efficiency) + launch : 0
//   time   = max(math, min_bytes / (HBM · memory_efficiency)) + reduce + launch
// and the (t, s) with the least time wins (the first listed on a tie). Without candidate
// tiles: the one tile gpu.gemm.tile, no operand limit, no split, no per-CTA overhead, as
// before those fields existed.

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "models/program.hpp"
#include "sim/hardware_profile.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

/// How a GEMM's time was modelled (all efficiencies are fractions in (0, 1]).
struct GemmEstimate {
  Time time;                        ///< modelled duration including launch overhead
  Time math_time;                   ///< FLOPs / (peak x efficiency)
  Time memory_time;                 ///< min_bytes / (HBM bandwidth x memory_efficiency), the floor
  Time reduction_time;              ///< split-K: the partial sums' reduction (zero without split)
  double efficiency = 0.0;          ///< FLOPs / (peak x math_time): every factor below together
  double tile_efficiency = 0.0;     ///< useful share of the issued CTA tiles (§12.2)
  double wave_efficiency = 0.0;     ///< filled share of the waves (§12.3)
  double size_efficiency = 0.0;     ///< gemm.size_efficiency at the GEMM's FLOPs
  double operand_efficiency = 1.0;  ///< the tile's operand-feed cap r(t) (1 without candidates)
  double k_efficiency = 1.0;        ///< k / (split_k x (ceil(k / split_k) + cta_overhead_k))
  std::int64_t tile_m = 0;          ///< the CTA tile used
  std::int64_t tile_n = 0;
  std::int64_t split_k = 1;   ///< CTAs per output tile along k
  std::int64_t tiles = 0;     ///< output tiles over all batch entries
  std::int64_t waves = 0;     ///< ceil(tiles x split_k / (sm_count x ctas_per_sm))
  bool memory_bound = false;  ///< the bytes floor won
};

/// Models one GEMM. A GEMM with a zero dimension takes only the launch overhead.
/// Throws Infeasible when the GPU has no peak rate for the GEMM's dtype.
GemmEstimate estimate_gemm(const program::Gemm& gemm, const hw::HardwareProfile& hw);

/// (read + written) / (memory_bandwidth x the class's efficiency) + kernel launch; without a
/// class (a plain copy), gpu.memory_efficiency.
Time kernel_time(const program::Kernel& kernel, const hw::HardwareProfile& hw,
                 std::optional<program::KernelClass> kernel_class = std::nullopt);

/// Modelled duration of a GEMM or kernel op on an otherwise idle GPU; zero for other ops.
Time compute_time(const program::Op& op, const hw::HardwareProfile& hw);

/// estimate_gemm(...).time, remembered per shape and dtype: the heuristic tries every
/// candidate tile and split for a shape, and a Program repeats a few shapes millions of times.
/// Not thread-safe: one per thread.
class GemmTimes {
 public:
  explicit GemmTimes(const hw::HardwareProfile& hw) : hw_(hw) {}
  Time operator()(const program::Gemm& gemm);

 private:
  struct Key {
    program::Gemm::Dim m, n, k, batch;
    DType dtype;
    DType c_dtype;
    bool accumulate;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct Hash {
    std::size_t operator()(const Key& key) const;
  };
  const hw::HardwareProfile& hw_;
  std::unordered_map<Key, Time, Hash> times_;
};

}  // namespace trainsim::sim
