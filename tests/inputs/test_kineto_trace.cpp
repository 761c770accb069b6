// The PyTorch profiler (Kineto) trace reader (inputs/kineto_trace.hpp): a real trace PyTorch
// wrote (data/kineto/), hand-made traces, and the errors. Its per-step breakdown:
// tests/reports/test_kineto_breakdown.cpp.

#include "inputs/kineto_trace.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "models/errors.hpp"

namespace trainsim::inputs {
namespace {

const std::filesystem::path kHta =
    std::filesystem::path(TRAINSIM_SOURCE_ROOT) / "data/kineto/hta_sampled_rank-0.json.gz";

KinetoTrace parse(const std::string& text) {
  return parse_kineto_trace(text, "trace.json");
}

TEST_CASE("kernels are classed by name, first rule first") {
  CHECK(classify_kernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn") ==
        KernelFamily::gemm);
  CHECK(classify_kernel("nvjet_tst_192x192_64x4_2x1_v_bz_coopB_TNT") == KernelFamily::gemm);
  CHECK(classify_kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64") ==
        KernelFamily::gemm);
  CHECK(classify_kernel("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn>") ==
        KernelFamily::gemm);
  CHECK(classify_kernel("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128>>") ==
        KernelFamily::attention);
  CHECK(classify_kernel("fmha_cutlassB_bf16_aligned_64x64_k128_sm80") == KernelFamily::attention);
  CHECK(classify_kernel("cudnn_generated_fort_native_sdpa_sm90_flash_fprop") ==
        KernelFamily::attention);
  CHECK(classify_kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage)") ==
        KernelFamily::communication);
  CHECK(classify_kernel("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel") ==
        KernelFamily::normalization);
  CHECK(classify_kernel("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4>") ==
        KernelFamily::softmax_loss);
  CHECK(classify_kernel("void at::native::(anonymous namespace)::multi_tensor_apply_kernel") ==
        KernelFamily::optimizer);
  CHECK(classify_kernel("void at::native::vectorized_elementwise_kernel<4, CUDAFunctor_add>") ==
        KernelFamily::elementwise);
  CHECK(classify_kernel("triton_red_fused_add_mul_0") == KernelFamily::other);
}

TEST_CASE("a real PyTorch trace: its steps, activities, streams and distributed rank") {
  const KinetoTrace trace = load_kineto_trace(kHta);
  REQUIRE(trace.steps.size() == 2);
  CHECK(trace.steps[0].number == 551);
  CHECK(trace.steps[1].number == 552);
  CHECK(trace.steps[0].duration.us() == doctest::Approx(607312.0));
  CHECK(trace.steps[1].duration.us() == doctest::Approx(622928.0));
  CHECK(trace.activities.size() == 1154 + 40 + 10);
  REQUIRE(trace.rank.has_value());
  CHECK(*trace.rank == 0);
  REQUIRE(trace.world_size.has_value());
  CHECK(*trace.world_size == 128);
  int gemm = 0;
  int nccl = 0;
  for (const GpuActivity& a : trace.activities) {
    CHECK(a.duration >= Time::zero());
    gemm += a.family == KernelFamily::gemm;
    nccl += a.family == KernelFamily::communication;
  }
  CHECK(gemm >= 308);  // the CUTLASS kernels alone
  CHECK(nccl == 10);
}

TEST_CASE("a bare array of events is read, and a trace without steps has none") {
  const KinetoTrace trace =
      parse("[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 5, \"dur\": 1}]");
  CHECK(trace.steps.empty());
  REQUIRE(trace.activities.size() == 1);
}

TEST_CASE("bad traces: the error names the place, the field and what is valid") {
  auto message = [](const std::string& text) {
    try {
      (void)parse(text);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(message("{\"traceEvents\": [\n{\"ph\": \"X\",, }]}").find("trace.json:2:") !=
        std::string::npos);
  CHECK(message("{\"events\": []}").find("traceEvents is missing") != std::string::npos);
  CHECK(message("42").find("expected a JSON object") != std::string::npos);
  CHECK(message("{\"traceEvents\": [1]}").find("traceEvents[0] is not an object") !=
        std::string::npos);
  const std::string no_dur = message(
      "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", "
      "\"ts\": 1}]}");
  CHECK(no_dur.find("traceEvents[0] ('gemm'): dur is missing or not a number") !=
        std::string::npos);
  CHECK(message("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"g\", "
                "\"ts\": -1, \"dur\": 1}]}")
            .find("ts is -1: expected a finite number >= 0") != std::string::npos);
  CHECK(message("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"g\", "
                "\"ts\": 0, \"dur\": 1e30}]}")
            .find("beyond the 106 days") != std::string::npos);
  // Events the reader has no use for are not checked: a CPU op without a duration is fine.
  CHECK(message(
            "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\"}]}") ==
        "accepted");
}

TEST_CASE("a truncated gzip file is an error naming the file") {
  const auto dir = std::filesystem::temp_directory_path() / "trainsim-test-kineto";
  std::filesystem::create_directories(dir);
  const auto cut = dir / "cut.json.gz";
  {
    std::ifstream in(kHta, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream out(cut, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  }
  try {
    (void)load_kineto_trace(cut);
    FAIL("a truncated trace was accepted");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("cut.json.gz") != std::string::npos);
  }
  CHECK_THROWS_AS((void)load_kineto_trace(dir / "missing.json"), ConfigError);
}

}  // namespace
}  // namespace trainsim::inputs
