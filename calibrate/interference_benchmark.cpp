#include "calibrate/interference_benchmark.hpp"

#include <fmt/format.h>

#include <cmath>
#include <ostream>

#include "calibrate/gemm_benchmark.hpp"
#include "calibrate/nccl_communicators.hpp"
#include "models/cuda/kernels.hpp"

namespace trainsim::calibrate::gpu {
namespace {

std::int64_t all_reduce_bytes(bool quick) {
  return quick ? std::int64_t{64} << 20 : std::int64_t{256} << 20;
}

std::vector<RawMeasurement> interference_grid(const BenchContext& ctx) {
  std::vector<RawMeasurement> rows;
  if (ctx.device_count < 2) {
    *ctx.log << fmt::format(
        "gemm_during_collective: skipped (an NCCL collective needs 2 GPUs or more; this node "
        "has {})\n",
        ctx.device_count);
    return rows;
  }
  const std::vector<std::array<std::int64_t, 3>> shapes =
      ctx.quick ? std::vector<std::array<std::int64_t, 3>>{{4096, 4096, 4096}}
                : std::vector<std::array<std::int64_t, 3>>{
                      {2048, 2048, 2048},  {4096, 4096, 4096},  {8192, 8192, 8192},
                      {4096, 16384, 4096}, {16384, 4096, 4096}, {8192, 3072, 12288}};
  for (const auto& [m, n, k] : shapes) {
    RawMeasurement r;
    r.benchmark = Benchmark::gemm_during_collective;
    r.dtype = DType::bf16;
    r.m = m;
    r.n = n;
    r.k = k;
    r.flops =
        Flops::of(2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k));
    rows.push_back(r);
  }
  return rows;
}

struct InterferenceState {
  Stream compute{0};
  std::unique_ptr<GemmRunner> gemm;
  LocalCommunicators* comms = nullptr;
  std::vector<DeviceBuffer> buffers;  // per rank, in place
  std::int64_t count = 0;
  int repeats = 1;

  void all_reduce() const {
    GroupCall group;
    for (int r = 0; r < comms->size(); ++r)
      check(ncclAllReduce(buffers[static_cast<std::size_t>(r)].data(),
                          buffers[static_cast<std::size_t>(r)].data(),
                          static_cast<std::size_t>(count), ncclFloat32, ncclSum,
                          comms->comm(r).get(), comms->stream(r).get()),
            "ncclAllReduce");
  }
  void wait_for_comms() const {
    for (int r = 0; r < comms->size(); ++r)
      comms->stream(r).synchronize();
  }
  /// Seconds of `body` on `stream` of device 0 (a rough setup measurement, not a row).
  template <typename Body>
  double seconds_alone(cudaStream_t stream, Body body) const {
    Event start(0);
    Event stop(0);
    body();  // warm
    wait_for_comms();
    compute.synchronize();
    start.record(stream);
    for (int i = 0; i < 3; ++i)
      body();
    stop.record(stream);
    wait_for_comms();
    return elapsed_ms(start, stop) * 1e-3 / 3;
  }
};

std::unique_ptr<Prepared> interference_setup(const RawMeasurement& row, BenchContext& ctx) {
  auto s = std::make_shared<InterferenceState>();
  s->comms = &ctx.communicators(ctx.device_count);
  s->count = all_reduce_bytes(ctx.quick) / 4;
  try {
    s->gemm =
        std::make_unique<GemmRunner>(GemmShape{row.m, row.n, row.k, 1, row.dtype, false, false, 0},
                                     0, s->compute.get(), ctx.l2_bytes);
    for (int r = 0; r < s->comms->size(); ++r) {
      s->buffers.emplace_back(s->comms->device(r), static_cast<std::size_t>(s->count * 4));
      use_device(s->comms->device(r));
      cuda::kernels::fill_normal({s->buffers.back().data(), DType::fp32}, s->count, 0.0, 1.0,
                                 static_cast<std::uint64_t>(r + 1), s->comms->stream(r).get());
    }
  } catch (const cuda::CudaError& e) {
    *ctx.log << fmt::format("gemm_during_collective {}x{}x{}: skipped ({})\n", row.m, row.n, row.k,
                            e.what());
    cudaGetLastError();
    return nullptr;
  }
  const double gemm_s = s->seconds_alone(s->compute.get(), [&] { s->gemm->run(); });
  const double reduce_s = s->seconds_alone(s->comms->stream(0).get(), [&] { s->all_reduce(); });
  s->repeats = std::max(1, static_cast<int>(std::ceil(1.5 * gemm_s / reduce_s)));
  *ctx.log << fmt::format(
      "gemm_during_collective {}x{}x{}: GEMM alone {:.3f} ms, all-reduce of "
      "{} MiB over {} GPUs {:.3f} ms, {} all-reduces per repetition\n",
      row.m, row.n, row.k, gemm_s * 1e3, s->count * 4 >> 20, s->comms->size(), reduce_s * 1e3,
      s->repeats);

  auto p = std::make_unique<Prepared>();
  p->streams = {{0, s->compute.get()}};
  p->run = [s] {
    s->wait_for_comms();  // the previous repetition's all-reduces are done
    for (int i = 0; i < s->repeats; ++i)
      s->all_reduce();
    s->gemm->run();
  };
  p->verify = [s] {
    s->wait_for_comms();
    for (int i = 0; i < s->gemm->copies(); ++i)
      s->gemm->run();
    return s->gemm->verify();
  };
  p->algorithm = fmt::format("all_reduce {} B x{} over {} GPUs; nccl {}", s->count * 4, s->repeats,
                             s->comms->size(), nccl_version());
  return p;
}

}  // namespace

BenchmarkDescriptor interference_benchmark() {
  return {"gemm_during_collective", "interference", interference_grid, interference_setup};
}

}  // namespace trainsim::calibrate::gpu
