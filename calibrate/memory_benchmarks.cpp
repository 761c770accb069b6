#include "calibrate/memory_benchmarks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <ostream>

#include "calibrate/gpu_resources.hpp"
#include "models/cuda/kernels.hpp"

namespace trainsim::calibrate::gpu {
namespace {

namespace k = cuda::kernels;

constexpr int kSamples = 32;
constexpr int kMaxCopies = 64;
constexpr std::int64_t kBiasColumns = 1024;  // bias+GeLU: rows × 1024 (a hidden size)

std::vector<std::int64_t> buffer_sizes(bool quick) {
  if (quick) return {std::int64_t{1} << 20, std::int64_t{16} << 20, std::int64_t{256} << 20};
  std::vector<std::int64_t> sizes;
  for (std::int64_t b = std::int64_t{1} << 20; b <= std::int64_t{4} << 30; b *= 2)
    sizes.push_back(b);
  return sizes;
}

int rotation(std::int64_t bytes_per_copy, std::int64_t l2_bytes) {
  return static_cast<int>(std::clamp<std::int64_t>(
      (2 * l2_bytes + bytes_per_copy - 1) / bytes_per_copy, 1, kMaxCopies));
}

std::unique_ptr<Prepared> skipped(BenchContext& ctx, const RawMeasurement& row,
                                  const std::exception& e) {
  *ctx.log << fmt::format("{} {} B: skipped ({})\n", to_string(row.benchmark), row.bytes.count(),
                          e.what());
  cudaGetLastError();
  return nullptr;
}

float host_gelu(float v) {
  constexpr float c = 0.7978845608028654f;
  return 0.5f * v * (1.0f + std::tanh(c * (v + 0.044715f * v * v * v)));
}

float bf16_to_float(std::uint16_t bits) {
  const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
  float f = 0.0f;
  std::memcpy(&f, &wide, sizeof f);
  return f;
}

/// Element `i` of a device array of `dtype` (fp32 or bf16) as float.
float read_element(const DeviceBuffer& buffer, DType dtype, std::int64_t i) {
  use_device(buffer.device());
  if (dtype == DType::bf16) {
    std::uint16_t bits = 0;
    check(cudaMemcpy(&bits, buffer.as<std::uint16_t>() + i, 2, cudaMemcpyDeviceToHost),
          "cudaMemcpy");
    return bf16_to_float(bits);
  }
  float v = 0.0f;
  check(cudaMemcpy(&v, buffer.as<float>() + i, 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
  return v;
}

std::vector<std::int64_t> sample_indices(std::int64_t n) {
  std::vector<std::int64_t> out;
  std::uint64_t state = 99;
  for (int i = 0; i < kSamples; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    out.push_back(static_cast<std::int64_t>(state >> 33) % n);
  }
  out.back() = n - 1;  // the tail too
  return out;
}

// --- memcpy -------------------------------------------------------------------------------

struct CopyState {
  Stream stream{0};
  std::vector<DeviceBuffer> src, dst;
  std::int64_t bytes = 0;
  int next = 0;
};

std::vector<RawMeasurement> memcpy_grid(const BenchContext& ctx) {
  std::vector<RawMeasurement> rows;
  for (const std::int64_t b : buffer_sizes(ctx.quick)) {
    RawMeasurement r;
    r.benchmark = Benchmark::memcpy;
    r.bytes = Bytes::of(b);
    r.bytes_moved = Bytes::of(2 * b);
    rows.push_back(r);
  }
  return rows;
}

std::unique_ptr<Prepared> memcpy_setup(const RawMeasurement& row, BenchContext& ctx) {
  auto s = std::make_shared<CopyState>();
  s->bytes = row.bytes.count();
  try {
    for (int i = 0; i < rotation(2 * s->bytes, ctx.l2_bytes); ++i) {
      s->src.emplace_back(0, static_cast<std::size_t>(s->bytes));
      s->dst.emplace_back(0, static_cast<std::size_t>(s->bytes));
      k::fill_normal({s->src.back().data(), DType::fp32}, s->bytes / 4, 0.0, 1.0,
                     static_cast<std::uint64_t>(i + 1), s->stream.get());
    }
  } catch (const cuda::CudaError& e) {
    return skipped(ctx, row, e);
  }
  auto p = std::make_unique<Prepared>();
  p->streams = {{0, s->stream.get()}};
  p->run = [s] {
    const auto i = static_cast<std::size_t>(s->next);
    s->next = (s->next + 1) % static_cast<int>(s->src.size());
    check(cudaMemcpyAsync(s->dst[i].data(), s->src[i].data(), static_cast<std::size_t>(s->bytes),
                          cudaMemcpyDeviceToDevice, s->stream.get()),
          "cudaMemcpyAsync");
  };
  p->verify = [run = p->run, s] {
    for (std::size_t c = 0; c < s->src.size(); ++c)  // every copy holds a result
      run();
    s->stream.synchronize();
    for (const std::int64_t i : sample_indices(s->bytes / 4))
      for (std::size_t c = 0; c < s->src.size(); ++c)
        if (read_element(s->src[c], DType::fp32, i) != read_element(s->dst[c], DType::fp32, i))
          return false;
    return true;
  };
  p->algorithm = "cudaMemcpyAsync";
  return p;
}

// --- element-wise kernels -----------------------------------------------------------------

enum class Kernel { convert, accumulate, bias_gelu };
constexpr std::array<std::string_view, 3> kKernelNames{"convert_fp32_bf16", "accumulate_fp32",
                                                       "bias_gelu_fp32_bf16"};

// x fp32 (n), z fp32 (n: accumulate's initial y), bias fp32 (1024), y of the kernel's output.
struct ElementwiseState {
  Kernel kernel = Kernel::convert;
  Stream stream{0};
  std::vector<DeviceBuffer> x, y;
  DeviceBuffer z, bias;
  std::int64_t n = 0;
  int next = 0;

  DType out_type() const { return kernel == Kernel::accumulate ? DType::fp32 : DType::bf16; }
  void launch(std::size_t i) {
    const cudaStream_t st = stream.get();
    switch (kernel) {
      case Kernel::convert:
        k::convert({x[i].data(), DType::fp32}, {y[i].data(), DType::bf16}, n, st);
        break;
      case Kernel::accumulate:
        k::accumulate({y[i].data(), DType::fp32}, {x[i].data(), DType::fp32}, n, st);
        break;
      case Kernel::bias_gelu:
        k::bias_gelu({x[i].data(), DType::fp32}, {bias.data(), DType::fp32},
                     {y[i].data(), DType::bf16}, n / kBiasColumns, kBiasColumns, st);
        break;
    }
  }
};

std::int64_t moved_bytes(Kernel kernel, std::int64_t n) {
  switch (kernel) {
    case Kernel::convert:
    case Kernel::bias_gelu:
      return n * (4 + 2);
    case Kernel::accumulate:
      return n * 4 * 3;
  }
  return 0;
}

std::vector<RawMeasurement> elementwise_grid(const BenchContext& ctx) {
  std::vector<RawMeasurement> rows;
  for (std::size_t kernel = 0; kernel < kKernelNames.size(); ++kernel) {
    for (const std::int64_t b : buffer_sizes(ctx.quick)) {
      RawMeasurement r;
      r.benchmark = Benchmark::elementwise;
      r.bytes = Bytes::of(b);  // x, fp32
      r.bytes_moved = Bytes::of(moved_bytes(static_cast<Kernel>(kernel), b / 4));
      r.algorithm = std::string(kKernelNames[kernel]);
      rows.push_back(r);
    }
  }
  return rows;
}

std::unique_ptr<Prepared> elementwise_setup(const RawMeasurement& row, BenchContext& ctx) {
  auto s = std::make_shared<ElementwiseState>();
  s->kernel = static_cast<Kernel>(
      std::find(kKernelNames.begin(), kKernelNames.end(), row.algorithm) - kKernelNames.begin());
  s->n = row.bytes.count() / 4;
  const std::int64_t y_bytes = s->n * bytes_per_element(s->out_type());
  try {
    const cudaStream_t st = s->stream.get();
    for (int i = 0; i < rotation(row.bytes.count() + y_bytes, ctx.l2_bytes); ++i) {
      s->x.emplace_back(0, static_cast<std::size_t>(row.bytes.count()));
      s->y.emplace_back(0, static_cast<std::size_t>(y_bytes));
      k::fill_normal({s->x.back().data(), DType::fp32}, s->n, 0.0, 1.0,
                     static_cast<std::uint64_t>(i + 1), st);
    }
    s->z = DeviceBuffer(0, static_cast<std::size_t>(row.bytes.count()));
    s->bias = DeviceBuffer(0, kBiasColumns * 4);
    k::fill_normal({s->z.data(), DType::fp32}, s->n, 0.0, 1.0, 1000, st);
    k::fill_normal({s->bias.data(), DType::fp32}, kBiasColumns, 0.0, 1.0, 1001, st);
  } catch (const cuda::CudaError& e) {
    return skipped(ctx, row, e);
  }
  auto p = std::make_unique<Prepared>();
  p->streams = {{0, s->stream.get()}};
  p->run = [s] {
    const auto i = static_cast<std::size_t>(s->next);
    s->next = (s->next + 1) % static_cast<int>(s->x.size());
    s->launch(i);
  };
  p->verify = [s] {
    // A fresh run on copy 0 from a known y (accumulate adds to it).
    use_device(0);
    if (s->kernel == Kernel::accumulate)
      check(cudaMemcpyAsync(s->y[0].data(), s->z.data(), static_cast<std::size_t>(s->n * 4),
                            cudaMemcpyDeviceToDevice, s->stream.get()),
            "cudaMemcpyAsync");
    s->launch(0);
    s->stream.synchronize();
    for (const std::int64_t i : sample_indices(s->n)) {
      const float x = read_element(s->x[0], DType::fp32, i);
      const float got = read_element(s->y[0], s->out_type(), i);
      float want = 0.0f;
      double tol = 0.0;
      switch (s->kernel) {
        case Kernel::convert:
          want = x;
          tol = 1.0 / 128;  // bf16 rounding
          break;
        case Kernel::accumulate:
          want = read_element(s->z, DType::fp32, i) + x;  // one fp32 add: exact match
          break;
        case Kernel::bias_gelu:
          want = host_gelu(x + read_element(s->bias, DType::fp32, i % kBiasColumns));
          tol = 1.0 / 128 + 1e-5;
          break;
      }
      if (std::abs(static_cast<double>(got) - want) > tol * std::abs(want) + 1e-6) return false;
    }
    return true;
  };
  p->algorithm = row.algorithm;
  return p;
}

}  // namespace

BenchmarkDescriptor memcpy_benchmark() {
  return {"memcpy", "memory", memcpy_grid, memcpy_setup};
}

BenchmarkDescriptor elementwise_benchmark() {
  return {"elementwise", "memory", elementwise_grid, elementwise_setup};
}

}  // namespace trainsim::calibrate::gpu
