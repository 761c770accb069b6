#include <doctest/doctest.h>

#include "sim/compute_model.hpp"
#include "sim_fixtures.hpp"
#include "units/doctest_printers.hpp"

using namespace trainsim;
using namespace trainsim::sim;
using trainsim::test::gemm;

TEST_CASE("a well-shaped GEMM runs at peak times efficiency") {
  auto hw = test::small_profile();
  hw.gpu.gemm.max_efficiency = 0.8;
  // 512 x 512 tiles of 128: 16 tiles on 4 SMs = 4 full waves.
  const auto g = gemm(512, 512, 4096);
  const GemmEstimate e = estimate_gemm(g, hw);
  CHECK(e.tiles == 16);
  CHECK(e.waves == 4);
  CHECK(e.wave_efficiency == 1.0);
  CHECK(e.tile_efficiency == 1.0);
  CHECK_FALSE(e.memory_bound);
  CHECK(e.time == g.flops() / (FlopRate::tflops(100) * 0.8));
}

TEST_CASE("a memory-bound GEMM is floored by bytes over achieved bandwidth") {
  const auto hw = test::small_profile();
  const auto g = gemm(512, 512, 1);
  const GemmEstimate e = estimate_gemm(g, hw);
  CHECK(e.memory_bound);
  // 3000 GB/s HBM at the profile's 50 % memory efficiency, as kernel_time uses.
  CHECK(e.memory_time == g.min_bytes() / Bandwidth::gb_per_s(1500));
  CHECK(e.time == g.min_bytes() / Bandwidth::gb_per_s(1500));
}

TEST_CASE("one tile over a full wave doubles the time") {
  const auto hw = test::small_profile();
  const GemmEstimate full = estimate_gemm(gemm(512, 128, 8192), hw);  // 4 tiles, 1 wave
  const GemmEstimate over = estimate_gemm(gemm(640, 128, 8192), hw);  // 5 tiles, 2 waves
  CHECK(full.waves == 1);
  CHECK(over.waves == 2);
  CHECK_FALSE(over.memory_bound);
  CHECK(over.time.ps() == doctest::Approx(2.0 * static_cast<double>(full.time.ps())));
  // The batch counts tiles too: 5 batched 128x128 products are 5 tiles.
  CHECK(estimate_gemm(gemm(128, 128, 8192, 5), hw).waves == 2);
}

TEST_CASE("tile quantization charges the padded tile") {
  const auto hw = test::small_profile();
  const GemmEstimate e = estimate_gemm(gemm(129, 128, 8192), hw);
  CHECK(e.tile_efficiency == doctest::Approx(129.0 / 256.0));
}

TEST_CASE("memory-bound kernels pay bytes over achieved bandwidth plus launch") {
  auto hw = test::small_profile();
  hw.gpu.kernel_launch = Time::from_us(3);
  program::Kernel k{Bytes::of(1'000'000), Bytes::of(500'000), Flops::of(1e6)};
  CHECK(kernel_time(k, hw) == Bytes::of(1'500'000) / Bandwidth::gb_per_s(1500) + Time::from_us(3));
}

TEST_CASE("a per-dtype max_efficiency replaces the scalar for its dtype only") {
  auto hw = test::small_profile();
  hw.gpu.gemm.max_efficiency = 0.8;
  hw.gpu.gemm.max_efficiency_by_dtype[DType::fp32] = 0.5;
  const auto bf16 = gemm(512, 512, 4096);
  const auto fp32 = program::Gemm::of(512, 512, 4096, 1, DType::fp32);
  CHECK(estimate_gemm(bf16, hw).time == bf16.flops() / (FlopRate::tflops(100) * 0.8));
  CHECK(estimate_gemm(fp32, hw).time == fp32.flops() / (FlopRate::tflops(25) * 0.5));
  CHECK(estimate_gemm(fp32, hw).efficiency == 0.5);
}
