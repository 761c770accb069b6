#include "calibrate/launch_benchmark.hpp"

#include "calibrate/bench_kernels.hpp"
#include "calibrate/gpu_resources.hpp"

namespace trainsim::calibrate::gpu {
namespace {

constexpr int kKernelsPerRun = 100;

std::vector<RawMeasurement> launch_grid(const BenchContext& ctx) {
  // Several rows, so that the memory fit's holdout has launch rows on both sides.
  RawMeasurement r;
  r.benchmark = Benchmark::launch;
  return std::vector<RawMeasurement>(ctx.quick ? 2 : 5, r);
}

std::unique_ptr<Prepared> launch_setup(const RawMeasurement&, BenchContext&) {
  auto stream = std::make_shared<Stream>(0);
  auto p = std::make_unique<Prepared>();
  p->streams = {{0, stream->get()}};
  p->run = [stream] {
    launch_empty_kernels(kKernelsPerRun, stream->get());
    check(cudaGetLastError(), "empty kernel launch");
  };
  // Nothing to compare: a launch that failed is caught by the check above.
  p->verify = [stream] {
    stream->synchronize();
    return cudaGetLastError() == cudaSuccess;
  };
  p->algorithm = "100 empty kernels";
  p->ops_per_run = kKernelsPerRun;
  return p;
}

}  // namespace

BenchmarkDescriptor launch_benchmark() {
  return {"launch", "launch", launch_grid, launch_setup};
}

}  // namespace trainsim::calibrate::gpu
