#pragma once
// NCCL collectives as nccl-tests runs them (one process, the node's GPUs, out of place, fp32
// sum, root 0): all-reduce, all-gather, reduce-scatter, broadcast, reduce, all-to-all over
// every group size the node allows (powers of two and the whole node, GPUs 0..g−1), and
// send/recv between GPUs 0 and 1; sizes from 8 B to 1 GiB (×2). `bytes` is nccl-tests' size
// (all-gather: the gathered output; reduce-scatter: the unreduced input), rounded down to a
// multiple of the group's element count. Inputs are random N(0, 1) per rank; the check
// recomputes 32 sampled output elements of every rank from the inputs on the host. Under MPI
// (BenchContext::rank_nodes and group set) the groups are world ranks 0..g−1, one process per
// GPU, each issuing and checking its own rank (other ranks' inputs regenerated here).

#include <vector>

#include "calibrate/benchmark.hpp"

namespace trainsim::calibrate::gpu {

/// One descriptor per kind (suite nccl), in the order above, send_recv last.
std::vector<BenchmarkDescriptor> collective_benchmarks();

/// nccl-tests' bus-bandwidth factor of `kind` over `ranks` (hardware-data.md §3.1).
double bus_factor(Benchmark kind, int ranks);

}  // namespace trainsim::calibrate::gpu
