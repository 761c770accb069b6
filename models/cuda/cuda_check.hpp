#pragma once
// `trainsim exec SCENARIO --backend cuda` with as many local GPUs as the scenario has ranks:
// every rank runs as a thread on its own GPU (device = rank), NCCL communicators between them
// (nccl_communicator.hpp), one training iteration, and the loss, every rank's gradients and
// its parameters after Adam are compared with the same ranks on the cpu backend (fp64, same
// weights and tokens, dropout off: equivalence_check.hpp). Under mpirun, one process per GPU
// runs its own rank instead (check_cuda_rank_against_cpu), with ids exchanged over MPI.

#include <cstdint>

#include "models/cuda/nccl_communicator.hpp"
#include "models/equivalence_check.hpp"
#include "models/scenario.hpp"

namespace trainsim::cuda {

/// The tolerance on a whole training step's relative error against fp64: 1e-3 in fp32 (and
/// tf32, fp64), the proof that the kernels compute what the cpu does; 2^-5 in bf16 and fp16,
/// where rounding dominates (revised from issue 6's 1e-2 after the first H100 run, 2026-11-27:
/// tiny-single's bf16 step differed by 1.55e-2 in final.ln.gamma's gradient, a sum over tokens
/// of bf16 terms, while the same kernels in fp32 differed by 8.2e-5).
double cuda_tolerance(DType dtype);

/// Runs the check; needs at least as many GPUs as ranks (throws Infeasible naming both).
BackendComparison check_cuda_against_cpu(const Scenario& scenario, std::uint64_t seed);

/// One process per GPU (started by MPI): which rank this process runs, and on which GPU.
struct ProcessRank {
  std::int64_t rank = 0;        ///< world rank (= MPI rank)
  std::int64_t world_size = 1;  ///< processes started; must equal the scenario's ranks
  int device = 0;               ///< GPU on this node (the node-local rank)
};

/// This process's rank on its GPU against the same rank on the cpu backend (every cpu rank
/// runs here, in memory); its communicators' ids come from `ids` (MpiNcclIds: every process
/// calls this at once). Throws Infeasible when the process count is not the scenario's ranks
/// or the node has too few GPUs.
BackendComparison check_cuda_rank_against_cpu(const Scenario& scenario, std::uint64_t seed,
                                              const ProcessRank& process, NcclIdSource& ids);

}  // namespace trainsim::cuda
