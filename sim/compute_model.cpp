#include "sim/compute_model.hpp"

#include <algorithm>
#include <variant>

namespace trainsim::sim {

namespace {
std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}
}  // namespace

GemmEstimate estimate_gemm(const program::Gemm& gemm, const hw::HardwareProfile& hw) {
  GemmEstimate e;
  const hw::GemmModel& model = hw.gpu.gemm;
  if (gemm.m <= 0 || gemm.n <= 0 || gemm.k <= 0 || gemm.batch <= 0) {
    e.time = hw.gpu.kernel_launch;
    return e;
  }
  const std::int64_t tile_m = std::max<std::int64_t>(1, model.tile_m);
  const std::int64_t tile_n = std::max<std::int64_t>(1, model.tile_n);
  const std::int64_t tiles_m = ceil_div(gemm.m, tile_m);
  const std::int64_t tiles_n = ceil_div(gemm.n, tile_n);
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

Time kernel_time(const program::Kernel& kernel, const hw::HardwareProfile& hw) {
  const Bytes moved = kernel.read + kernel.written;
  if (moved.count() <= 0) return hw.gpu.kernel_launch;
  return moved / (hw.gpu.memory_bandwidth * hw.gpu.memory_efficiency) + hw.gpu.kernel_launch;
}

Time compute_time(const program::Op& op, const hw::HardwareProfile& hw) {
  if (const auto* g = std::get_if<program::Gemm>(&op.payload)) return estimate_gemm(*g, hw).time;
  if (const auto* k = std::get_if<program::Kernel>(&op.payload)) return kernel_time(*k, hw);
  return Time::zero();
}

}  // namespace trainsim::sim
