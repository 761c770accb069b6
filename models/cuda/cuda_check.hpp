#pragma once
// `trainsim exec SCENARIO --backend cuda` with as many local GPUs as the scenario has ranks:
// every rank runs as a thread on its own GPU (device = rank), NCCL communicators between them
// (nccl_communicator.hpp), one training iteration, and the loss, every rank's gradients and
// its parameters after Adam are compared with the same ranks on the cpu backend (fp64, same
// weights and tokens, dropout off: equivalence_check.hpp).

#include <cstdint>

#include "models/equivalence_check.hpp"
#include "models/scenario.hpp"

namespace trainsim::cuda {

/// The tolerance on relative error against fp64: 1e-3 in fp32 (and tf32, fp64), 1e-2
/// in bf16 and fp16.
double cuda_tolerance(DType dtype);

/// Runs the check; needs at least as many GPUs as ranks (throws Infeasible naming both).
BackendComparison check_cuda_against_cpu(const Scenario& scenario, std::uint64_t seed);

}  // namespace trainsim::cuda
