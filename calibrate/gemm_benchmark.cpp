#include "calibrate/gemm_benchmark.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <ostream>

#include "calibrate/bench_kernels.hpp"
#include "models/cuda/kernels.hpp"

namespace trainsim::calibrate::gpu {
namespace {

namespace k = cuda::kernels;

constexpr int kSamples = 32;
constexpr int kMaxCopies = 16;

struct CublasTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
  DType storage;  ///< tf32 is stored as fp32
};

CublasTypes cublas_types(DType t) {
  switch (t) {
    case DType::fp64:
      return {CUDA_R_64F, CUBLAS_COMPUTE_64F, DType::fp64};
    case DType::fp32:
      return {CUDA_R_32F, CUBLAS_COMPUTE_32F, DType::fp32};
    case DType::tf32:
      return {CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, DType::fp32};
    case DType::bf16:
      return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, DType::bf16};
    case DType::fp16:
      return {CUDA_R_16F, CUBLAS_COMPUTE_32F, DType::fp16};
    case DType::fp8:  // not benchmarked (cuBLASLt's FP8 path); the caller's dtypes exclude it
      break;
  }
  return {CUDA_R_32F, CUBLAS_COMPUTE_32F, DType::fp32};
}

// |C − reference| ≤ tolerance · Σ|a·b|: the input rounding of tf32 (2^-11 twice) and the
// output rounding of bf16 / fp16 dominate; fp64 is checked through fp32 copies.
double tolerance(DType t) {
  switch (t) {
    case DType::bf16:
      return 1.6e-2;
    case DType::fp16:
      return 2e-3;
    case DType::tf32:
      return 4e-3;
    case DType::fp32:
      return 1e-5;
    case DType::fp64:
      return 1e-6;
    case DType::fp8:
      return 1.3e-1;
  }
  return 1e-5;
}

std::int64_t elements_a(const GemmShape& s) {
  return s.m * s.k;
}
std::int64_t elements_b(const GemmShape& s) {
  return s.k * s.n;
}
std::int64_t elements_c(const GemmShape& s) {
  return s.m * s.n;
}

// A fixed-seed linear congruential sequence: the sampled entries are the same every run.
std::uint64_t next_random(std::uint64_t& state) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return state >> 33;
}

RawMeasurement gemm_row(const GemmShape& s) {
  RawMeasurement r;
  r.benchmark = Benchmark::gemm;
  r.dtype = s.dtype;
  r.m = s.m;
  r.n = s.n;
  r.k = s.k;
  r.batch = s.batch;
  r.flops = Flops::of(2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) *
                      static_cast<double>(s.k) * static_cast<double>(s.batch));
  return r;
}

std::vector<RawMeasurement> gemm_grid(const BenchContext& ctx) {
  // Powers of two and odd sizes (a prime and a multiple of 8 plus a remainder), square and
  // skinny, per dtype; then every scenario shape. Transposes of grid rows: none (NN).
  const std::vector<std::int64_t> sizes =
      ctx.quick ? std::vector<std::int64_t>{256, 1000, 2048}
                : std::vector<std::int64_t>{128, 256,  512,  1024, 2048, 4096, 8192, 16384,
                                            127, 1000, 1531, 3000, 5120, 6144, 12288};
  const std::vector<DType> dtypes =
      ctx.quick ? std::vector<DType>{DType::bf16, DType::fp32}
                : std::vector<DType>{DType::bf16, DType::fp16, DType::tf32, DType::fp32};
  std::vector<RawMeasurement> rows;
  for (const DType t : dtypes) {
    for (const std::int64_t s : sizes)
      rows.push_back(gemm_row({s, s, s, 1, t, false, false, 0}));
    if (ctx.quick) continue;
    for (const std::int64_t s : {1024, 4096, 8192}) {  // skinny: tokens × hidden × hidden
      rows.push_back(gemm_row({s, 4 * s, s, 1, t, false, false, 0}));
      rows.push_back(gemm_row({s, s, 4 * s, 1, t, false, false, 0}));
      rows.push_back(gemm_row({16 * s, s, s, 1, t, false, false, 0}));
    }
  }
  for (const GemmShape& s : ctx.shapes) {
    RawMeasurement r = gemm_row(s);
    r.algorithm = fmt::format("shape:{}{}", s.transpose_a ? 'T' : 'N', s.transpose_b ? 'T' : 'N');
    rows.push_back(r);
  }
  return rows;
}

GemmShape shape_of(const RawMeasurement& r) {
  const bool ta = r.algorithm.size() == 8 && r.algorithm[6] == 'T';
  const bool tb = r.algorithm.size() == 8 && r.algorithm[7] == 'T';
  return {r.m, r.n, r.k, r.batch, r.dtype, ta, tb, 0};
}

}  // namespace

GemmRunner::GemmRunner(const GemmShape& shape, int device, cudaStream_t stream,
                       std::int64_t l2_bytes)
    : shape_(shape),
      device_(device),
      stream_(stream),
      handle_(device, stream),
      workspace_(device, kGemmWorkspaceBytes) {
  check(cublasSetWorkspace(handle_.get(), workspace_.data(), kGemmWorkspaceBytes),
        "cublasSetWorkspace");
  const DType storage = cublas_types(shape.dtype).storage;
  const std::int64_t size = bytes_per_element(storage);
  const int n = static_cast<int>(std::clamp<std::int64_t>(
      (2 * l2_bytes + footprint() - 1) / std::max<std::int64_t>(footprint(), 1), 1, kMaxCopies));
  std::uint64_t seed = 1;
  for (int i = 0; i < n; ++i) {
    Operands o{DeviceBuffer(device, shape.batch * elements_a(shape) * size),
               DeviceBuffer(device, shape.batch * elements_b(shape) * size),
               DeviceBuffer(device, shape.batch * elements_c(shape) * size)};
    use_device(device);
    k::fill_normal({o.a.data(), storage}, shape.batch * elements_a(shape), 0.0, 1.0, seed++,
                   stream);
    k::fill_normal({o.b.data(), storage}, shape.batch * elements_b(shape), 0.0, 1.0, seed++,
                   stream);
    copies_.push_back(std::move(o));
  }
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

std::int64_t GemmRunner::footprint() const {
  return shape_.batch * (elements_a(shape_) + elements_b(shape_) + elements_c(shape_)) *
         bytes_per_element(cublas_types(shape_.dtype).storage);
}

void GemmRunner::run() {
  // Row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: cuBLAS gets B first, with
  // the stored matrices' leading dimensions (calibrate/README.md).
  const Operands& o = copies_[static_cast<std::size_t>(next_)];
  next_ = (next_ + 1) % copies();
  const CublasTypes types = cublas_types(shape_.dtype);
  const auto& s = shape_;
  const cublasOperation_t op_b = s.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = s.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const std::int64_t ld_b = s.transpose_b ? s.k : s.n;
  const std::int64_t ld_a = s.transpose_a ? s.m : s.k;
  const double one64 = 1.0;
  const double zero64 = 0.0;
  const float one32 = 1.0f;
  const float zero32 = 0.0f;
  const bool f64 = types.compute == CUBLAS_COMPUTE_64F;
  const void* alpha = f64 ? static_cast<const void*>(&one64) : &one32;
  const void* beta = f64 ? static_cast<const void*>(&zero64) : &zero32;
  use_device(device_);
  if (s.batch == 1) {  // one GEMM as frameworks issue it (cublasGemmEx; batched heuristics differ)
    check(cublasGemmEx(handle_.get(), op_b, op_a, static_cast<int>(s.n), static_cast<int>(s.m),
                       static_cast<int>(s.k), alpha, o.b.data(), types.data, static_cast<int>(ld_b),
                       o.a.data(), types.data, static_cast<int>(ld_a), beta, o.c.data(), types.data,
                       static_cast<int>(s.n), types.compute, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
    return;
  }
  check(cublasGemmStridedBatchedEx(handle_.get(), op_b, op_a, static_cast<int>(s.n),
                                   static_cast<int>(s.m), static_cast<int>(s.k), alpha, o.b.data(),
                                   types.data, static_cast<int>(ld_b), elements_b(s), o.a.data(),
                                   types.data, static_cast<int>(ld_a), elements_a(s), beta,
                                   o.c.data(), types.data, static_cast<int>(s.n), elements_c(s),
                                   static_cast<int>(s.batch), types.compute, CUBLAS_GEMM_DEFAULT),
        "cublasGemmStridedBatchedEx");
}

bool GemmRunner::verify() {
  const Operands& o = copies_.front();
  const DType storage = cublas_types(shape_.dtype).storage;
  const std::int64_t size = bytes_per_element(storage);
  DeviceBuffer a(device_, elements_a(shape_) * 4);
  DeviceBuffer b(device_, elements_b(shape_) * 4);
  DeviceBuffer c(device_, elements_c(shape_) * 4);
  DeviceBuffer index(device_, 2 * kSamples * sizeof(std::int64_t));
  DeviceBuffer out(device_, 2 * kSamples * sizeof(double));
  std::uint64_t state = 12345;
  bool ok = true;
  for (const std::int64_t e : {std::int64_t{0}, shape_.batch - 1}) {
    use_device(device_);
    k::convert({o.a.at(static_cast<std::size_t>(e * elements_a(shape_) * size)), storage},
               {a.data(), DType::fp32}, elements_a(shape_), stream_);
    k::convert({o.b.at(static_cast<std::size_t>(e * elements_b(shape_) * size)), storage},
               {b.data(), DType::fp32}, elements_b(shape_), stream_);
    k::convert({o.c.at(static_cast<std::size_t>(e * elements_c(shape_) * size)), storage},
               {c.data(), DType::fp32}, elements_c(shape_), stream_);
    std::array<std::int64_t, 2 * kSamples> rc{};
    for (int i = 0; i < kSamples; ++i) {
      rc[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(next_random(state)) % shape_.m;
      rc[static_cast<std::size_t>(kSamples + i)] =
          static_cast<std::int64_t>(next_random(state)) % shape_.n;
    }
    check(cudaMemcpyAsync(index.data(), rc.data(), sizeof(rc), cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync");
    reference_gemm_entries({a.as<float>(), b.as<float>(), shape_.m, shape_.n, shape_.k,
                            shape_.transpose_a, shape_.transpose_b},
                           index.as<std::int64_t>(), index.as<std::int64_t>() + kSamples, kSamples,
                           out.as<double>(), out.as<double>() + kSamples, stream_);
    std::array<double, 2 * kSamples> ref{};
    check(cudaMemcpyAsync(ref.data(), out.data(), sizeof(ref), cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync");
    std::array<float, kSamples> got{};  // only the sampled entries come back
    for (int i = 0; i < kSamples; ++i) {
      const auto u = static_cast<std::size_t>(i);
      check(cudaMemcpyAsync(&got[u], c.as<float>() + rc[u] * shape_.n + rc[kSamples + u],
                            sizeof(float), cudaMemcpyDeviceToHost, stream_),
            "cudaMemcpyAsync");
    }
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    for (int i = 0; i < kSamples; ++i) {
      const auto u = static_cast<std::size_t>(i);
      if (!(std::abs(static_cast<double>(got[u]) - ref[u]) <=
            tolerance(shape_.dtype) * ref[kSamples + u] + 1e-30))
        ok = false;
    }
  }
  return ok;
}

BenchmarkDescriptor gemm_benchmark() {
  BenchmarkDescriptor d;
  d.name = "gemm";
  d.suite = "gemm";
  d.grid = gemm_grid;
  d.setup = [](const RawMeasurement& row, BenchContext& ctx) -> std::unique_ptr<Prepared> {
    auto stream = std::make_shared<Stream>(0);
    std::shared_ptr<GemmRunner> runner;
    try {
      runner = std::make_shared<GemmRunner>(shape_of(row), 0, stream->get(), ctx.l2_bytes);
    } catch (const cuda::CudaError& e) {
      *ctx.log << fmt::format("gemm {}x{}x{} {}: skipped ({})\n", row.m, row.n, row.k,
                              to_string(row.dtype), e.what());
      cudaGetLastError();  // clear the allocation failure
      return nullptr;
    }
    auto p = std::make_unique<Prepared>();
    p->streams = {{0, stream->get()}};
    p->run = [runner, stream] { runner->run(); };
    p->verify = [runner] {
      for (int i = 0; i < runner->copies(); ++i)  // every copy holds a result, copy 0 included
        runner->run();
      return runner->verify();
    };
    p->algorithm = row.algorithm.empty() ? "cublas-default:NN" : row.algorithm;
    return p;
  };
  return d;
}

}  // namespace trainsim::calibrate::gpu
