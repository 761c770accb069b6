#pragma once
// Interference: a bf16 GEMM on GPU 0 timed while an NCCL all-reduce over all the node's GPUs
// runs on other streams (gemm_during_collective rows). Setup times the GEMM and the all-reduce
// alone and issues enough all-reduces per repetition to outlast the GEMM by half, so the whole
// GEMM overlaps communication. Needs 2 GPUs or more; with one the grid is empty, saying so.

#include "calibrate/benchmark.hpp"

namespace trainsim::calibrate::gpu {

/// The "gemm_during_collective" benchmark (suite interference).
BenchmarkDescriptor interference_benchmark();

}  // namespace trainsim::calibrate::gpu
