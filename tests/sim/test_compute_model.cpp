#include <doctest/doctest.h>

#include <cstdlib>

#include "models/errors.hpp"
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

TEST_CASE("fused attention runs its FLOPs at gpu.attention's share of the bf16 peak") {
  auto hw = test::small_profile();  // bf16 peak 100 TFLOP/s
  hw.gpu.kernel_launch = Time::from_us(3);
  const program::Kernel k{Bytes::of(1'000'000), Bytes::of(500'000), Flops::of(6e9)};
  // Without the profile's section the kernel cannot be timed: a clear error, not a default.
  CHECK_THROWS_WITH_AS(kernel_time(k, hw, program::KernelClass::attention),
                       doctest::Contains("has no gpu.attention"), Infeasible);
  hw.gpu.attention = hw::AttentionSpec{0.6, 0.4, Time::zero(), Time::zero()};
  CHECK(kernel_time(k, hw, program::KernelClass::attention) ==
        Flops::of(6e9) / (FlopRate::tflops(100) * 0.6) + Time::from_us(3));
  CHECK(kernel_time(k, hw, program::KernelClass::attention_backward) ==
        Flops::of(6e9) / (FlopRate::tflops(100) * 0.4) + Time::from_us(3));
  // Few FLOPs over many bytes: the HBM floor.
  const program::Kernel thin{Bytes::of(1'500'000'000), Bytes::of(0), Flops::of(1e6)};
  CHECK(kernel_time(thin, hw, program::KernelClass::attention) ==
        Bytes::of(1'500'000'000) / (hw.gpu.memory_bandwidth * hw.gpu.memory_efficiency) +
            Time::from_us(3));
  // A fitted fixed time per call, per pass, on top.
  hw.gpu.attention->fixed_time = Time::from_us(20);
  hw.gpu.attention->backward_fixed_time = Time::from_us(70);
  CHECK(kernel_time(k, hw, program::KernelClass::attention) ==
        Flops::of(6e9) / (FlopRate::tflops(100) * 0.6) + Time::from_us(20) + Time::from_us(3));
  CHECK(kernel_time(k, hw, program::KernelClass::attention_backward) ==
        Flops::of(6e9) / (FlopRate::tflops(100) * 0.4) + Time::from_us(70) + Time::from_us(3));
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

// cuBLAS's heuristic (gpu.gemm.candidate_tiles): the toy GPU's 4 SMs at 25 TFLOP/s each.
namespace {
hw::HardwareProfile heuristic_profile() {
  auto hw = test::small_profile();
  hw.gpu.gemm.candidate_tiles = {{128, 128}, {128, 64}};
  hw.gpu.gemm.operand_bandwidth = Bandwidth::gb_per_s(1e6);  // no tile is feed-bound
  return hw;
}
// One CTA of tm x tn over depth k on one of the 4 SMs at 100 TFLOP/s x max_efficiency 1.
Time cta(std::int64_t tm, std::int64_t tn, double k) {
  return Time::from_seconds(2.0 * static_cast<double>(tm * tn) * k / 25e12);
}
}  // namespace

TEST_CASE("the heuristic picks the tile that fills the SMs") {
  const auto hw = heuristic_profile();
  // 256 x 128: two 128x128 tiles leave half the SMs idle; four 128x64 tiles fill one wave.
  const GemmEstimate e = estimate_gemm(gemm(256, 128, 8192), hw);
  CHECK(e.tile_m == 128);
  CHECK(e.tile_n == 64);
  CHECK(e.split_k == 1);
  CHECK(e.waves == 1);
  CHECK(e.wave_efficiency == 1.0);
  CHECK(e.time == cta(128, 64, 8192));
  // 256 x 256: four 128x128 tiles fill a wave; the smaller tile is no faster, and the first
  // listed wins a tie.
  const GemmEstimate big = estimate_gemm(gemm(256, 256, 8192), hw);
  CHECK(big.tile_n == 128);
  CHECK(big.time == cta(128, 128, 8192));
}

TEST_CASE("the operand bandwidth caps a small tile's rate by its reuse") {
  auto hw = heuristic_profile();
  // bf16: 128x128 loads (128 + 128)·2 B per 2·128·128 FLOPs, 64 FLOP/B; 128x64 42.7 FLOP/B.
  // At 1.6 TB/s the big tile is fed at 102 TFLOP/s (capped at the 100 it can reach), the
  // smaller one at 68.3.
  hw.gpu.gemm.operand_bandwidth = Bandwidth::gb_per_s(1600);
  hw.gpu.gemm.candidate_tiles = {{128, 64}};
  const GemmEstimate small = estimate_gemm(gemm(256, 256, 8192), hw);
  CHECK(small.operand_efficiency == doctest::Approx(1600e9 * 2 * 128 * 64 / (192 * 2) / 100e12));
  CHECK(small.time.ps() == doctest::Approx(2.0 * static_cast<double>(cta(128, 64, 8192).ps()) /
                                           small.operand_efficiency)
                               .epsilon(1e-6));
  // Given both, 256 x 256 takes the big tile (one full wave at full rate) over two waves of
  // the fed-limited small one; without the cap they would tie.
  hw.gpu.gemm.candidate_tiles = {{128, 64}, {128, 128}};
  const GemmEstimate e = estimate_gemm(gemm(256, 256, 8192), hw);
  CHECK(e.tile_n == 128);
  CHECK(e.operand_efficiency == 1.0);
  CHECK(e.time == cta(128, 128, 8192));
}

TEST_CASE("split-K fills the SMs when few output tiles meet a deep k") {
  auto hw = heuristic_profile();
  hw.gpu.gemm.candidate_tiles = {{256, 256}};
  // One output tile of depth 65536: alone it keeps one SM of four busy.
  const GemmEstimate alone = estimate_gemm(gemm(256, 256, 65536), hw);
  CHECK(alone.split_k == 1);
  CHECK(alone.time == cta(256, 256, 65536));
  hw.gpu.gemm.max_split_k = 8;
  const GemmEstimate split = estimate_gemm(gemm(256, 256, 65536), hw);
  // Four slices fill the wave; eight would need two waves of half the depth: no faster, and
  // twice the partial sums to reduce.
  CHECK(split.split_k == 4);
  CHECK(split.waves == 1);
  CHECK_FALSE(split.memory_bound);
  CHECK(split.math_time == cta(256, 256, 16384));
  // The reduction writes and reads 4 fp32 partial tiles at the achieved 1500 GB/s.
  CHECK(split.reduction_time == Bytes::of(2 * 4 * 256 * 256 * 4) / Bandwidth::gb_per_s(1500));
  CHECK(split.time == split.math_time + split.reduction_time);
  // Output tiles that already fill the waves gain nothing from a split: it only adds the
  // reduction.
  CHECK(estimate_gemm(gemm(1024, 1024, 65536), hw).split_k == 1);
}

TEST_CASE("a small k pays each CTA's prologue and epilogue") {
  auto hw = heuristic_profile();
  hw.gpu.gemm.candidate_tiles = {{128, 128}};
  hw.gpu.gemm.cta_overhead_k = 64;
  // 16 tiles, 4 waves; each CTA takes k + 64 steps.
  const GemmEstimate shallow = estimate_gemm(gemm(512, 512, 64), hw);
  CHECK_FALSE(shallow.memory_bound);
  CHECK(shallow.k_efficiency == 0.5);
  CHECK(shallow.math_time.ps() ==
        doctest::Approx(4.0 * static_cast<double>(cta(128, 128, 128).ps())).epsilon(1e-5));
  const GemmEstimate deep = estimate_gemm(gemm(512, 512, 4096), hw);
  CHECK(deep.k_efficiency == doctest::Approx(4096.0 / 4160.0));
  CHECK(deep.efficiency == doctest::Approx(4096.0 / 4160.0));
  // The same overhead makes slices dear: a split into 4 pays it once per CTA, into 8 or 16
  // (two or four waves of shallower slices) twice or four times.
  hw.gpu.gemm.candidate_tiles = {{256, 256}};
  hw.gpu.gemm.max_split_k = 16;
  const GemmEstimate one = estimate_gemm(gemm(256, 256, 65536), hw);
  CHECK(one.split_k == 4);
  CHECK(one.math_time == cta(256, 256, 16384 + 64));
}

TEST_CASE("batched attention GEMMs get their small-k and small-n behaviour from the shapes") {
  auto hw = heuristic_profile();
  hw.gpu.gemm.cta_overhead_k = 64;
  // Scores Q·Kᵀ: k = head dim 64, 32 heads x batch: half of each CTA's time is overhead.
  const GemmEstimate scores = estimate_gemm(gemm(512, 512, 64, 32), hw);
  CHECK(scores.k_efficiency == 0.5);
  // Context P·V: n = head dim 64 fits the 128x64 tile exactly, where 128x128 would compute
  // half padding.
  const GemmEstimate context = estimate_gemm(gemm(512, 64, 512, 32), hw);
  CHECK(context.tile_n == 64);
  CHECK(context.tile_efficiency == 1.0);
  hw.gpu.gemm.candidate_tiles = {{128, 128}};
  CHECK(estimate_gemm(gemm(512, 64, 512, 32), hw).tile_efficiency == 0.5);
}

TEST_CASE("one candidate, fed freely, without overhead or split, is the single-tile model") {
  auto hw = heuristic_profile();
  hw.gpu.gemm.max_efficiency = 0.8;
  hw.gpu.gemm.candidate_tiles = {{128, 128}};
  auto single = hw;
  single.gpu.gemm.candidate_tiles.clear();
  for (const auto& g : {gemm(512, 512, 4096), gemm(640, 128, 8192), gemm(129, 128, 8192),
                        gemm(128, 128, 8192, 5), gemm(512, 512, 1)}) {
    const GemmEstimate a = estimate_gemm(g, hw);
    const GemmEstimate b = estimate_gemm(g, single);
    CHECK(std::abs(a.time.ps() - b.time.ps()) <= 1);
    CHECK(a.waves == b.waves);
    CHECK(a.tile_efficiency == b.tile_efficiency);
    CHECK(a.memory_bound == b.memory_bound);
  }
}

TEST_CASE("GemmTimes remembers estimate_gemm's time per shape") {
  auto hw = heuristic_profile();
  hw.gpu.gemm.max_split_k = 8;
  GemmTimes times(hw);
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& g : {gemm(128, 128, 65536), gemm(512, 512, 64, 32), gemm(256, 128, 8192)})
      CHECK(times(g) == estimate_gemm(g, hw).time);
  }
}

TEST_CASE("each kernel class moves its bytes at its own share of HBM bandwidth") {
  auto hw = test::small_profile();  // 3000 GB/s at memory_efficiency 0.5
  hw.gpu.kernel_launch = Time::from_us(2);
  hw.gpu.kernel_efficiency[program::KernelClass::layer_norm_backward] = 0.25;
  const program::Kernel k{Bytes::of(1'000'000), Bytes::of(500'000), Flops::of(1e6)};
  const Time launch = Time::from_us(2);
  CHECK(kernel_time(k, hw, program::KernelClass::layer_norm_backward) ==
        Bytes::of(1'500'000) / Bandwidth::gb_per_s(750) + launch);
  // A class without a figure, and no class (a copy), stream at memory_efficiency.
  CHECK(kernel_time(k, hw, program::KernelClass::softmax) ==
        Bytes::of(1'500'000) / Bandwidth::gb_per_s(1500) + launch);
  CHECK(kernel_time(k, hw) == Bytes::of(1'500'000) / Bandwidth::gb_per_s(1500) + launch);
  // The replay's cost of an op is its class's.
  program::Op op;
  op.payload = k;
  op.kernel_class = program::KernelClass::layer_norm_backward;
  CHECK(compute_time(op, hw) == Bytes::of(1'500'000) / Bandwidth::gb_per_s(750) + launch);
}
