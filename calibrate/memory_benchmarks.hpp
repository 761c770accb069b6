#pragma once
// Memory bandwidth: device-to-device copies (cudaMemcpyAsync) and the executor's element-wise
// kernels (models/cuda/kernels.hpp: convert fp32→bf16, accumulate fp32, bias+GeLU fp32→bf16)
// over buffers of 1 MiB to 4 GiB (×2). Rows record the buffer (`bytes`) and the HBM traffic
// (`bytes_moved` = read + written). Buffers smaller than L2 rotate through copies that span
// twice its size. The checks compare 32 sampled elements with the host's result.

#include "calibrate/benchmark.hpp"

namespace trainsim::calibrate::gpu {

/// The "memcpy" benchmark (suite memory).
BenchmarkDescriptor memcpy_benchmark();
/// The "elementwise" benchmark (suite memory): one row per kernel and size.
BenchmarkDescriptor elementwise_benchmark();

}  // namespace trainsim::calibrate::gpu
