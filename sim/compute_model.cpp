#include "sim/compute_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <variant>

#include "models/errors.hpp"

namespace trainsim::sim {

namespace {
std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

/// One CTA tile for every shape (profiles without candidate tiles), as before the heuristic.
GemmEstimate single_tile(const program::Gemm& gemm, const hw::HardwareProfile& hw) {
  GemmEstimate e;
  const hw::GemmModel& model = hw.gpu.gemm;
  const std::int64_t tile_m = std::max<std::int64_t>(1, model.tile_m);
  const std::int64_t tile_n = std::max<std::int64_t>(1, model.tile_n);
  const std::int64_t tiles_m = ceil_div(gemm.m, tile_m);
  const std::int64_t tiles_n = ceil_div(gemm.n, tile_n);
  e.tile_m = tile_m;
  e.tile_n = tile_n;
  e.tile_efficiency =
      static_cast<double>(gemm.m) * static_cast<double>(gemm.n) /
      (static_cast<double>(tiles_m * tile_m) * static_cast<double>(tiles_n * tile_n));
  e.tiles = tiles_m * tiles_n * gemm.batch;
  const std::int64_t wave =
      std::max<std::int64_t>(1, hw.gpu.sm_count) * std::max<std::int64_t>(1, model.ctas_per_sm);
  e.waves = ceil_div(e.tiles, wave);
  e.wave_efficiency = static_cast<double>(e.tiles) / (static_cast<double>(e.waves) * wave);
  const Flops flops = gemm.flops();
  e.size_efficiency = model.size_efficiency.empty() ? 1.0 : model.size_efficiency.at(flops.count());
  e.efficiency = model.max_efficiency_for(gemm.dtype) * e.tile_efficiency * e.wave_efficiency *
                 e.size_efficiency;
  e.math_time = flops / (hw.peak(gemm.dtype) * e.efficiency);
  // The same achieved HBM bandwidth as kernel_time: a GEMM streams no faster than a copy.
  e.memory_time = gemm.min_bytes() / (hw.gpu.memory_bandwidth * hw.gpu.memory_efficiency);
  e.memory_bound = e.memory_time > e.math_time;
  e.time = std::max(e.math_time, e.memory_time) + hw.gpu.kernel_launch;
  return e;
}

/// cuBLAS's choice among the candidate tiles and split-K factors (the formulas in the header).
GemmEstimate heuristic(const program::Gemm& gemm, const hw::HardwareProfile& hw) {
  const hw::GemmModel& model = hw.gpu.gemm;
  const Flops flops = gemm.flops();
  const double size_efficiency =
      model.size_efficiency.empty() ? 1.0 : model.size_efficiency.at(flops.count());
  const double peak = hw.peak(gemm.dtype).flops_per_second();
  // The largest tile's steady rate (all SMs), which max_efficiency was measured as.
  const double steady = peak * model.max_efficiency_for(gemm.dtype) * size_efficiency;
  const double slots = static_cast<double>(std::max<std::int64_t>(1, hw.gpu.sm_count) *
                                           std::max<std::int64_t>(1, model.ctas_per_sm));
  const auto slot_count = static_cast<std::int64_t>(slots);
  const double element = static_cast<double>(bytes_per_element(gemm.dtype));
  // Split-K partial sums are kept in the accumulator type: fp32, fp64 for fp64 GEMMs.
  const double partial = gemm.dtype == DType::fp64 ? 8.0 : 4.0;
  const double hbm = hw.gpu.memory_bandwidth.bytes_per_second() * hw.gpu.memory_efficiency;
  const double memory = gemm.min_bytes().as_double() / hbm;
  const double m = gemm.m;
  const double n = gemm.n;
  const double batch = gemm.batch;
  // Each CTA's epilogue moves its tile of C through HBM at the end of the wave, when every
  // CTA of the wave does the same: max_efficiency, measured with a C of the inputs' dtype
  // written once, holds that; a wider C, or one read and written (beta 1, Megatron's fused
  // gradient accumulation into fp32 main gradients), moves more bytes per element.
  const double c_element = static_cast<double>(bytes_per_element(gemm.c_dtype));
  const double epilogue_extra =
      std::max(0.0, static_cast<double>(bytes_per_element(gemm.c_dtype)) *
                            (gemm.accumulate ? 2.0 : 1.0) -
                        element);

  GemmEstimate best;
  double best_seconds = 0.0;
  bool found = false;
  for (const hw::GemmTile& tile : model.candidate_tiles) {
    const std::int64_t tiles_m = ceil_div(gemm.m, tile.m);
    const std::int64_t tiles_n = ceil_div(gemm.n, tile.n);
    const std::int64_t tiles = tiles_m * tiles_n * gemm.batch;
    const double tm = static_cast<double>(tile.m);
    const double tn = static_cast<double>(tile.n);
    // FLOPs per byte the tile loads: 2·tm·tn·k FLOPs for (tm + tn)·k elements.
    const double intensity = 2.0 * tm * tn / ((tm + tn) * element);
    const double operand =
        std::min(1.0, model.operand_bandwidth.bytes_per_second() * intensity / steady);
    const double slot_rate = steady * operand / slots;  // FLOP/s of one CTA slot
    const std::int64_t max_split = std::min<std::int64_t>(model.max_split_k, gemm.k);
    for (std::int64_t s = 1; s <= std::max<std::int64_t>(1, max_split); ++s) {
      const std::int64_t ctas = tiles * s;
      const std::int64_t waves = ceil_div(ctas, slot_count);
      const std::int64_t depth = ceil_div(gemm.k, s);
      // With split-K the CTAs write fp32 partials (the reduction's traffic) and the reduction
      // kernel writes C, read first when accumulating.
      const double math = static_cast<double>(waves) *
                          (2.0 * tm * tn * (static_cast<double>(depth) + model.cta_overhead_k) /
                               slot_rate +
                           (s == 1 ? slots * tm * tn * epilogue_extra / hbm : 0.0));
      const double reduction =
          s > 1 ? (2.0 * static_cast<double>(s) * m * n * batch * partial +
                   (gemm.accumulate ? m * n * batch * c_element : 0.0)) /
                          hbm +
                      hw.gpu.kernel_launch.seconds()
                : 0.0;
      const double seconds = std::max(math, memory) + reduction;
      if (found && !(seconds < best_seconds)) continue;
      found = true;
      best_seconds = seconds;
      best.tile_m = tile.m;
      best.tile_n = tile.n;
      best.split_k = s;
      best.tiles = tiles;
      best.waves = waves;
      best.tile_efficiency =
          m * n / (static_cast<double>(tiles_m) * tm * static_cast<double>(tiles_n) * tn);
      best.wave_efficiency = static_cast<double>(ctas) / (static_cast<double>(waves) * slots);
      best.operand_efficiency = operand;
      best.k_efficiency =
          static_cast<double>(gemm.k) /
          (static_cast<double>(s) * (static_cast<double>(depth) + model.cta_overhead_k));
      best.math_time = Time::from_seconds(math);
      best.reduction_time = Time::from_seconds(reduction);
    }
  }
  best.size_efficiency = size_efficiency;
  best.efficiency = flops.count() / (peak * best.math_time.seconds());
  best.memory_time = Time::from_seconds(memory);
  best.memory_bound = best.memory_time > best.math_time;
  best.time =
      std::max(best.math_time, best.memory_time) + best.reduction_time + hw.gpu.kernel_launch;
  return best;
}
}  // namespace

GemmEstimate estimate_gemm(const program::Gemm& gemm, const hw::HardwareProfile& hw) {
  if (gemm.m <= 0 || gemm.n <= 0 || gemm.k <= 0 || gemm.batch <= 0) {
    GemmEstimate e;
    e.time = hw.gpu.kernel_launch;
    return e;
  }
  return hw.gpu.gemm.candidate_tiles.empty() ? single_tile(gemm, hw) : heuristic(gemm, hw);
}

namespace {
// A fused attention pass: its FLOPs at the profile's share of the 16-bit tensor peak, floored
// by its HBM traffic.
Time attention_time(const program::Kernel& kernel, const hw::HardwareProfile& hw,
                    bool backward) {
  if (!hw.gpu.attention) {
    throw Infeasible(fmt::format(
        "hardware profile '{}' has no gpu.attention (the fused attention kernels' share of the "
        "bf16 peak): model.attention flash needs it",
        hw.name));
  }
  const auto peak = hw.gpu.peak.find(DType::bf16);
  if (peak == hw.gpu.peak.end()) {
    throw Infeasible(fmt::format("hardware profile '{}' has no bf16 peak for fused attention",
                                 hw.name));
  }
  const double share =
      backward ? hw.gpu.attention->backward_efficiency : hw.gpu.attention->efficiency;
  const Time math = kernel.flops / (peak->second * share);
  const Time memory =
      (kernel.read + kernel.written) / (hw.gpu.memory_bandwidth * hw.gpu.memory_efficiency);
  const Time fixed =
      backward ? hw.gpu.attention->backward_fixed_time : hw.gpu.attention->fixed_time;
  return std::max(math, memory) + fixed + hw.gpu.kernel_launch;
}
}  // namespace

Time kernel_time(const program::Kernel& kernel, const hw::HardwareProfile& hw,
                 std::optional<program::KernelClass> kernel_class) {
  if (kernel_class && !program::memory_bound(*kernel_class)) {
    return attention_time(kernel, hw, *kernel_class == program::KernelClass::attention_backward);
  }
  const Bytes moved = kernel.read + kernel.written;
  if (moved.count() <= 0) return hw.gpu.kernel_launch;
  const double efficiency =
      kernel_class ? hw.gpu.memory_efficiency_for(*kernel_class) : hw.gpu.memory_efficiency;
  return moved / (hw.gpu.memory_bandwidth * efficiency) + hw.gpu.kernel_launch;
}

Time compute_time(const program::Op& op, const hw::HardwareProfile& hw) {
  if (const auto* g = std::get_if<program::Gemm>(&op.payload)) return estimate_gemm(*g, hw).time;
  if (const auto* k = std::get_if<program::Kernel>(&op.payload))
    return kernel_time(*k, hw, op.kernel_class);
  return Time::zero();
}

std::size_t GemmTimes::Hash::operator()(const Key& key) const {
  const std::uint64_t a = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(key.m)) << 32) |
                          static_cast<std::uint32_t>(key.n);
  const std::uint64_t b = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(key.k)) << 32) |
                          static_cast<std::uint32_t>(key.batch);
  return std::hash<std::uint64_t>{}(a) ^ (std::hash<std::uint64_t>{}(b)*0x9e3779b97f4a7c15ULL) ^
         static_cast<std::size_t>(key.dtype) ^
         (static_cast<std::size_t>(key.c_dtype) << 8) ^ (key.accumulate ? 0x10000u : 0u);
}

Time GemmTimes::operator()(const program::Gemm& gemm) {
  const Key key{gemm.m, gemm.n, gemm.k, gemm.batch, gemm.dtype, gemm.c_dtype, gemm.accumulate};
  if (const auto it = times_.find(key); it != times_.end()) return it->second;
  const Time t = estimate_gemm(gemm, hw_).time;
  times_.emplace(key, t);
  return t;
}

}  // namespace trainsim::sim
