#pragma once
// One training iteration on one rank: micro-batch loop (forward, backward, gradient
// accumulation into fp32 main gradients), data-parallel gradient reduction in buckets on the
// dp stream (overlapped with the last backward when asked, parallelism-reference §8.3): an
// all-reduce, or with ZeRO-1 (Megatron's distributed optimizer, §8.1) a reduce-scatter, Adam
// on this rank's shard and an all-gather of the updated parameters. Sequence-parallel
// parameters get their gradients all-reduced over TP once per step.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/backend.hpp"
#include "models/gpt.hpp"

namespace trainsim {

/// Megatron DDP's default bucket size in parameters: max(4e7, 1e6 · DP).
std::int64_t default_bucket_size(std::int64_t data_parallel);

/// A contiguous range of the gradient buffer, reduced by one collective.
struct GradientBucket {
  std::vector<std::size_t> parameters;  ///< indices into GptModel::parameters()
  std::int64_t numel = 0;
};

/// Megatron's bucketing: parameters in reverse registration order (the order their
/// gradients become final), a new bucket once the current one holds `bucket_size` elements.
std::vector<GradientBucket> make_buckets(std::span<const Parameter> parameters,
                                         std::int64_t bucket_size);

/// How gradients are bucketed and the optimizer state is split over the DP group.
struct OptimizerLayout {
  int zero = 0;  ///< 0: replicated; 1: optimizer state sharded (Megatron distributed optimizer)
  std::int64_t data_parallel = 1;
  std::int64_t data_parallel_rank = 0;    ///< this rank's position in its DP group
  std::int64_t bucket_size = 40'000'000;  ///< parameters per DP bucket
};

/// This rank's fp32 optimizer shard of one bucket (ZeRO >= 1): elements [offset, offset +
/// chunk) of the bucket's concatenated parameters, chunk = ceil(bucket numel / DP).
struct AdamShard {
  std::int64_t offset = 0;
  Tensor master;
  Tensor m;
  Tensor v;
};

/// fp32 master weights and Adam moments (persistent optimizer state) and the buckets.
struct OptimizerState {
  OptimizerLayout layout;
  std::vector<GradientBucket> buckets;
  std::vector<AdamTensors> tensors;  ///< ZeRO 0: aligned with GptModel::parameters()
  std::vector<AdamShard> shards;     ///< ZeRO 1: aligned with `buckets`
};
/// Allocates the optimizer state of `model`. Moments start at zero; the caller that loads
/// parameter values loads the master weights too (setup, not part of an iteration).
OptimizerState make_optimizer_state(Backend& backend, GptModel& model,
                                    const OptimizerLayout& layout = {});

struct IterationConfig {
  std::int64_t micro_batches = 1;  ///< per replica (gradient accumulation steps)
  std::int64_t data_parallel = 1;
  std::int64_t global_tokens = 1;  ///< sequences x seq_len of the global batch (loss mean)
  bool overlap_grad_reduce = true;
  bool optimizer_step = true;  ///< false: stop after the gradients (gradient checks)
  AdamHyper adam;
};

/// Runs one iteration; returns a [1, 1] tensor holding this rank's share of the mean loss
/// (Σ over micro batches of its tokens' losses / global_tokens).
Tensor run_iteration(Backend& backend, GptModel& model, OptimizerState& optimizer,
                     const IterationConfig& config);

}  // namespace trainsim
