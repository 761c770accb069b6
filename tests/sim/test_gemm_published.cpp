// The shipped A100 and H100 profiles' GEMM model against the published GEMM figures we have
// (hardware-data.md §4.1-4.3, fidelity-data.md §3.1), each with its tolerance and why.

#include <doctest/doctest.h>

#include <filesystem>
#include <vector>

#include "inputs/hwprofile_loader.hpp"
#include "sim/compute_model.hpp"

using namespace trainsim;
using namespace trainsim::sim;

namespace {
hw::HardwareProfile shipped(const char* name) {
  return inputs::load_hardware_profile(std::filesystem::path(TRAINSIM_SOURCE_ROOT) / "hwprofiles" /
                                       (std::string(name) + ".yaml"));
}
double tflops(const program::Gemm& g, const hw::HardwareProfile& hw) {
  return g.flops().count() / estimate_gemm(g, hw).time.seconds() * 1e-12;
}
program::Gemm bf16(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch = 1) {
  return program::Gemm::of(m, n, k, batch, DType::bf16);
}
}  // namespace

TEST_CASE("A100: MAMF's best shape comes out a few percent under the measured 271.2 TFLOP/s") {
  // hardware-data.md §4.1 (medium-high): 1024 x 10240 x 5120 at 271.2 TFLOP/s, the figure
  // max_efficiency (0.869) is taken from. At that shape the model also charges 320 tiles on
  // 324 slots (98.8 %), each CTA's overhead (5120 / 5216) and the launch, which the measured
  // figure already contains: within 5 % under it, never above.
  const auto hw = shipped("selene-a100-80gb");
  const double t = tflops(bf16(1024, 10240, 5120), hw);
  CHECK(t < 271.2 * 1.01);
  CHECK(t > 271.2 * 0.95);
}

TEST_CASE("A100: square GEMMs follow NVIDIA's cuBLAS curve") {
  // hardware-data.md §4.2, read off a chart (±10 %, low confidence): ≈ 90, 200, 245-260 and
  // 290 TFLOP/s at m = n = k = 1024, 2048, 4096, 8192. Tolerance 15 % from 2048 on; 35 % at
  // 1024, where the two published figures disagree by half (EleutherAI's 59.9, GPU not
  // stated, §4.3) and launch latency, which the model only guesses, is a fifth of the time.
  const auto hw = shipped("selene-a100-80gb");
  const std::vector<std::pair<std::int64_t, double>> chart{
      {1024, 90.0}, {2048, 200.0}, {4096, 252.5}, {8192, 290.0}};
  double previous = 0.0;
  for (const auto& [size, published] : chart) {
    const double t = tflops(bf16(size, size, size), hw);
    CAPTURE(size);
    CAPTURE(t);
    CHECK(std::abs(t / published - 1.0) < (size == 1024 ? 0.35 : 0.15));
    CHECK(t > previous);  // the curve rises with size
    previous = t;
  }
}

TEST_CASE("fidelity-data §3.1: the worked wave-quantization examples") {
  // M = 2048 tokens, N = 12288 with 256 x 128 tiles: 768 tiles, 7.1 waves on the A100's 108
  // SMs (768 / 864 = 89 %), 5.8 on the H100's 132 (768 / 792 = 97 %). Exact.
  for (const auto& [name, efficiency] :
       {std::pair{"selene-a100-80gb", 768.0 / 864.0}, std::pair{"dgx-h100", 768.0 / 792.0}}) {
    auto hw = shipped(name);
    hw.gpu.gemm.candidate_tiles = {{256, 128}};
    const GemmEstimate e = estimate_gemm(bf16(2048, 12288, 12288), hw);
    CAPTURE(name);
    CHECK(e.tiles == 768);
    CHECK(e.wave_efficiency == doctest::Approx(efficiency));
  }
  // With every candidate the A100 does better: 128 x 128 tiles, 1536 in 15 waves (94.8 %).
  const GemmEstimate e = estimate_gemm(bf16(2048, 12288, 12288), shipped("selene-a100-80gb"));
  CHECK(e.tile_m * e.tile_n == 128 * 128);
  CHECK(e.wave_efficiency == doctest::Approx(1536.0 / 1620.0));
}

TEST_CASE("A100: the heuristic never does worse than the one large tile") {
  // cuBLAS picks among its tiles per shape; the 256 x 128 tile alone is one of the choices.
  // The brief's case: 2048 x 2048 x 8192 is 128 tiles on 108 SMs (2 waves, 59 %) with it.
  const auto hw = shipped("selene-a100-80gb");
  auto large = hw;
  large.gpu.gemm.candidate_tiles = {{256, 128}};
  large.gpu.gemm.max_split_k = 1;
  for (const auto& g : {bf16(2048, 2048, 8192), bf16(2048, 2048, 2048), bf16(2048, 50304, 2048),
                        bf16(2048, 2048, 50304), bf16(8192, 2304, 6144), bf16(1024, 1024, 1024),
                        bf16(2048, 2048, 128, 32), bf16(2048, 128, 2048, 32)}) {
    CAPTURE(g.m);
    CAPTURE(g.n);
    CAPTURE(g.k);
    CHECK(estimate_gemm(g, hw).time <= estimate_gemm(g, large).time);
  }
  const GemmEstimate one = estimate_gemm(bf16(2048, 2048, 8192), large);
  CHECK(one.wave_efficiency == doctest::Approx(128.0 / 216.0));
  CHECK(estimate_gemm(bf16(2048, 2048, 8192), hw).efficiency > 1.3 * one.efficiency);
}

TEST_CASE("H100 SwiGLU 10922 vs 10944: not a quantization effect") {
  // hardware-data.md §4.1 (stas00): with hidden 4096, d_ff 10922 reaches 272.73 TFLOP/s and
  // 10944 398.38 (1.46x), put down to tile and wave quantization. Both widths need the same
  // tiles under every candidate (86 of 128, 171 of 64 columns), so the model, which
  // quantizes, gives them the same time within their 0.2 % FLOP difference: the gap is
  // 10922's 4-byte row alignment (cuBLAS then loses its 16-byte-load kernels), which the
  // model does not represent (sim/README.md).
  const auto hw = shipped("dgx-h100");
  for (const std::int64_t m : {2048, 4096, 8192}) {
    const GemmEstimate odd = estimate_gemm(bf16(m, 10922, 4096), hw);
    const GemmEstimate even = estimate_gemm(bf16(m, 10944, 4096), hw);
    CAPTURE(m);
    CHECK(odd.tiles == even.tiles);
    CHECK(odd.waves == even.waves);
    CHECK(tflops(bf16(m, 10944, 4096), hw) / tflops(bf16(m, 10922, 4096), hw) ==
          doctest::Approx(1.0).epsilon(0.01));
  }
}

TEST_CASE("A100: attention's batched GEMMs run below the MLP's") {
  // hardware-data.md §4.3 (EleutherAI's sample, GPU and shapes not stated, low confidence):
  // score and value GEMMs without FlashAttention ~48 TFLOP/s against 241-253 for the MLP's.
  // On an A100 80 GB the value GEMM (P·V) cannot fall below its HBM floor, head dim d FLOPs
  // per byte of P read: 111-222 TFLOP/s for d = 64-128 at 1.73 TB/s, so that sample's shapes
  // or GPU differ from these; only the ordering is checked: the scores pay a CTA overhead
  // as large as half their depth (k = 128), the values their HBM floor.
  const auto hw = shipped("selene-a100-80gb");
  const double mlp = tflops(bf16(8192, 16384, 4096), hw);
  const GemmEstimate scores = estimate_gemm(bf16(2048, 2048, 128, 64), hw);
  const GemmEstimate context = estimate_gemm(bf16(2048, 128, 2048, 64), hw);
  CHECK(mlp > 230.0);
  CHECK(tflops(bf16(2048, 2048, 128, 64), hw) < 0.7 * mlp);
  CHECK(scores.k_efficiency < 0.6);
  CHECK(context.memory_bound);
  CHECK(tflops(bf16(2048, 128, 2048, 64), hw) < 0.8 * mlp);
}
