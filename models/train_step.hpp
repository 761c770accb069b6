#pragma once
// One training iteration on one rank: micro-batch loop (forward, backward, gradient
// accumulation into fp32 main gradients), data-parallel gradient reduction in buckets on the
// dp stream (overlapped with the backward when asked, parallelism-reference §8.3) and Adam,
// for the ZeRO stages of §8.1-8.2:
//   0  all-reduce of the full gradients after the last micro batch; replicated Adam.
//   1  Megatron's distributed optimizer: reduce-scatter of the full gradient buffer after the
//      last micro batch, Adam on this rank's fp32 shard, all-gather of the updated parameters.
//   2  gradients sharded too (DeepSpeed stage 2): a bucket's full gradients exist only from
//      the first write of one of them in the backward pass to its reduce-scatter, which adds
//      this rank's chunk into a persistent fp32 gradient shard; then Adam on the shard and the
//      parameter all-gather as in 1. Buckets are double-buffered as DeepSpeed's: a new one
//      waits until at most one other is still scattering, and every backward pass ends by
//      waiting for its reductions. So the transient gradients stay at most the bucket that
//      holds the tied embedding (written first, final last) plus two buckets, whatever the
//      speed of the DP network (a slow one stalls the backward instead). With gradient
//      accumulation the reduce-scatter runs in every micro batch (as DeepSpeed does; a full
//      buffer kept across micro batches would undo the saving), so it costs m× the single
//      reduce-scatter of stage 1 (§8.2).
//   3  parameters sharded too (DeepSpeed stage 3 / FSDP FULL_SHARD, one unit per layer plus
//      one for the embeddings and final LayerNorm): each rank keeps a 1/N_d shard of every
//      unit's bf16 parameters; a unit's parameters are all-gathered before its forward and
//      freed after it, gathered again for its backward, and its gradients reduce-scattered
//      into the shard; Adam on the shard; no parameter all-gather after the step. The next
//      unit's all-gather is issued one unit ahead on the dp stream (FSDP's forward and
//      backward prefetch), so at most two layers are gathered at once. The embedding unit
//      stays gathered from its forward to the end of its backward (FSDP keeps the root
//      unsharded after forward). Gradient buffers per unit as the buckets of 2. Per micro
//      batch: 2 all-gathers and 1 reduce-scatter per layer, 1 and 1 for the embedding unit:
//      ≈ 3mΨ elements on the wire (§8.2); at most the embedding unit and two layers gathered
//      (bf16) and the same in full fp32 gradients.
// With a pipeline schedule (run_pipeline; also layered on one stage) ZeRO 2 and 3 follow one
// rule, the run rule, which gives each schedule what its pass order allows: a run is a maximal
// sequence of the rank's consecutive compute passes of one model chunk in one direction.
//   ZeRO 3: a unit's parameters are all-gathered before the first pass of a run that uses
//      them and kept to the end of the run's last pass (the units outside the layers serve the
//      chunk with the embedding and the chunk with the head); the next run's first unit is
//      prefetched on the dp stream from the last layer of the run's first pass, so that its
//      gather overlaps the whole run.
//   ZeRO 2, 3: a chunk's gradients accumulate in full-size bucket buffers over a run of its
//      backward passes and are reduce-scattered into the shard once, in the run's last pass,
//      as soon as each bucket is final. The passes do not wait for the reductions (the
//      double buffering still bounds them); the step waits once after the last pass.
// So layered and breadth-first gather each layer once for forward and once for backward and
// reduce-scatter each bucket once per step (≈ 3Ψ, independent of m; §7.5, §7.6), while 1F1B
// and interleaved re-gather and reduce per run (1F1B: per pass in the steady state, ≈ 3mΨ, the
// depth-first penalty) and GPipe per phase. The tied word embedding gets a bucket (unit) of its
// own on the first and last stages, and the embedding group sums its reduced shard.
// Sequence-parallel parameters get their gradients all-reduced over TP: once per step after
// the DP reduction (ZeRO 0 and 1, Megatron's finalize_model_grads), or per bucket before the
// DP reduce-scatter (ZeRO 2 and 3: the shard mixes parameters, so the sum over TP is taken
// while the full gradients still exist).
//
// ZeRO with tensor parallelism shards each TP rank's parameters over its DP group: the two
// are orthogonal, as are sequence parallelism and recomputation.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "models/backend.hpp"
#include "models/transformer.hpp"
#include "models/pipeline_schedule.hpp"

namespace trainsim {

/// Megatron DDP's default bucket size in parameters: max(4e7, 1e6 · DP).
std::int64_t default_bucket_size(std::int64_t data_parallel);

/// A contiguous range of the gradient buffer, reduced by one collective.
struct GradientBucket {
  std::vector<std::size_t> parameters;  ///< indices into TransformerModel::parameters()
  std::int64_t numel = 0;
  /// The group that sums it: the data-parallel one, or for routed experts' weights the
  /// expert-data-parallel one (Megatron keeps them in a buffer of their own).
  CommGroup group = CommGroup::data;
};

/// Megatron's bucketing: parameters in reverse registration order (the order their
/// gradients become final), a new bucket once the current one holds `bucket_size` elements;
/// routed experts' weights (Parameter::expert) bucketed the same way after the others, in
/// buckets of their own.
/// Parameter `alone` (if any) gets a bucket of its own, as Megatron gives the word embedding
/// shared between the first and last pipeline stages, so that its ZeRO-1 shard covers the
/// same elements on both stages.
std::vector<GradientBucket> make_buckets(std::span<const Parameter> parameters,
                                         std::int64_t bucket_size,
                                         std::optional<std::size_t> alone = std::nullopt);

/// ZeRO-3's units (FSDP's wrapped modules): one per layer this rank holds, in the order the
/// backward pass finishes them (last layer first), then one for the parameters outside the
/// layers (if any), then parameter `alone` (if any) in a unit of its own: the word embedding a
/// pipeline's first and last stages share, so that its shard covers the same elements on both.
std::vector<GradientBucket> make_layer_units(std::span<const Parameter> parameters,
                                             std::optional<std::size_t> alone = std::nullopt);

/// How gradients are bucketed and the model state is split over the DP group.
struct OptimizerLayout {
  /// 0: replicated; 1: optimizer state sharded (Megatron distributed optimizer); 2: and
  /// gradients; 3: and parameters. The model must shard what 2 and 3 shard (TransformerOptions).
  int zero = 0;
  std::int64_t data_parallel = 1;
  std::int64_t data_parallel_rank = 0;    ///< this rank's position in its DP group
  std::int64_t bucket_size = 40'000'000;  ///< parameters per DP bucket
  /// The routed experts' gradient group (RankLayout::expert_data_group) and this rank's place
  /// in it; `experts`: the model has some, so the gradient norm is summed over every rank.
  std::int64_t expert_data_parallel = 1;
  std::int64_t expert_data_parallel_rank = 0;
  bool experts = false;

  /// Members of the group that sums `bucket`, and this rank's position in it.
  std::int64_t members(const GradientBucket& bucket) const {
    return bucket.group == CommGroup::expert_data ? expert_data_parallel : data_parallel;
  }
  std::int64_t position(const GradientBucket& bucket) const {
    return bucket.group == CommGroup::expert_data ? expert_data_parallel_rank : data_parallel_rank;
  }
};

/// This rank's shard of one bucket (ZeRO >= 1): elements [offset, offset + chunk) of the
/// bucket's concatenated parameters, chunk = ceil(bucket numel / DP).
struct AdamShard {
  std::int64_t offset = 0;
  Tensor master;  ///< fp32
  Tensor m;       ///< fp32
  Tensor v;       ///< fp32
  Tensor grad;    ///< ZeRO >= 2: fp32 gradient shard (sum over DP and micro batches)
  Tensor param;   ///< ZeRO 3: model-dtype parameter shard, the only persistent copy
};

/// Megatron's DynamicGradScaler (fp16 models only; megatron/optimizer/grad_scaler.py with
/// Megatron's defaults): the backward pass starts from the loss times `scale`, the optimizer
/// step multiplies the gradients by 1/scale and checks them for inf and NaN; an overflow skips
/// the step and, after `hysteresis` overflowing steps, multiplies the scale by
/// `backoff_factor`; `growth_interval` steps without one multiply it by `growth_factor`.
struct GradScaler {
  double scale = 4294967296.0;  ///< 2^32: Megatron's --initial-loss-scale
  double min_scale = 1.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  std::int64_t growth_interval = 1000;  ///< --loss-scale-window
  std::int64_t hysteresis = 2;
  std::int64_t growth_tracker = 0;
  std::int64_t hysteresis_tracker = 2;

  /// After a step's overflow check (host logic: no kernels of note).
  void update(bool found_inf);
};

/// fp32 master weights and Adam moments (persistent optimizer state) and the buckets.
struct OptimizerState {
  OptimizerLayout layout;
  std::vector<GradientBucket> buckets;  ///< ZeRO 3: make_layer_units
  std::vector<AdamTensors> tensors;     ///< ZeRO 0: aligned with TransformerModel::parameters()
  std::vector<AdamShard> shards;        ///< ZeRO >= 1: aligned with `buckets`
  /// fp16 models: the loss scaler (nullopt: no loss scaling, as bf16 and fp32 runs).
  std::optional<GradScaler> grad_scaler;
  /// The last step's global gradient norm before clipping, where the backend could read it
  /// (nullopt without clipping, on meta, or when the step was skipped).
  std::optional<double> grad_norm;
  bool skipped = false;  ///< the last step found inf or NaN gradients and did not update
};
/// Allocates the optimizer state of `model` (and with ZeRO >= 2 the gradient shards, with
/// ZeRO 3 the parameter shards); an fp16 model gets a GradScaler. Moments start at zero; the
/// caller that loads parameter values loads the master weights (and ZeRO-3 parameter shards)
/// too (setup, not part of an iteration). Throws std::invalid_argument if the model does not
/// shard what `layout` shards.
OptimizerState make_optimizer_state(Backend& backend, TransformerModel& model,
                                    const OptimizerLayout& layout = {});

/// The TransformerOptions sharding flags that ZeRO stage `zero` needs.
void shard_model_state(TransformerOptions& options, int zero);

/// Where this rank sits in a pipeline (parallelism-reference §7): the schedule, its stage and
/// the world ranks of its neighbours (same TP and DP position).
struct PipelinePosition {
  PipelineShape shape{};  ///< stages 1: no pipeline (micro_batches is IterationConfig's)
  std::int64_t stage = 0;
  std::int64_t previous = -1;  ///< world rank of the previous stage; -1 on the first
  std::int64_t next = -1;      ///< world rank of the next stage; -1 on the last
  /// Megatron's scatter/gather: with TP > 1 and no SP the stage boundary is the same on every
  /// TP rank, so each sends row chunk `scatter_part` (its TP rank) of `scatter_parts` (t) and
  /// the receiver all-gathers the chunks over TP. 1: the whole (sequence-sharded) tensor.
  std::int64_t scatter_parts = 1;
  std::int64_t scatter_part = 0;

  /// Runs the schedule's pass list (run_pipeline): 2 or more stages, or layered gradient
  /// accumulation on one stage (chunks = layers, no transfers).
  bool pipelined() const { return shape.stages > 1 || shape.schedule == PipelineSchedule::layered; }
  bool first() const { return stage == 0; }
  bool last() const { return stage == shape.stages - 1; }
};

struct IterationConfig {
  std::int64_t micro_batches = 1;  ///< per replica (gradient accumulation steps)
  std::int64_t data_parallel = 1;
  /// Members of the routed experts' gradient group (1 without experts).
  std::int64_t expert_data_parallel = 1;
  std::int64_t global_tokens = 1;  ///< sequences x seq_len of the global batch (loss mean)
  bool overlap_grad_reduce = true;
  /// ZeRO 1 and 2 with DP (or the experts' expert-data group) > 1: the updated parameters are
  /// gathered at the start of the next step (each bucket before its first use), not at the end of
  /// this one (ParallelPlan's DataParallel::overlap_param_gather). The last step's update then
  /// stays sharded until the next step gathers it: gather_updated_parameters finishes it
  /// (Megatron's final sync).
  bool overlap_param_gather = false;
  bool optimizer_step = true;  ///< false: stop after the gradients (gradient checks)
  /// Gradient clipping by global norm (Megatron's --clip-grad): the gradients are scaled by
  /// clip_grad / (norm + 1e-6) when that is below 1; 0: no clipping.
  double clip_grad = 0.0;
  /// Members of the model group (CommGroup::model) over which the norm and the overflow flag
  /// are all-reduced; 1: no all-reduce.
  std::int64_t model_parallel = 1;
  AdamHyper adam;
  PipelinePosition pipeline{};
};

/// Runs one iteration; returns a [1, 1] tensor holding this rank's share of the mean loss
/// (Σ over micro batches of its tokens' losses / global_tokens); undefined on a pipeline
/// stage before the last. The optimizer step is Megatron's (optimizer.py's step,
/// clip_grads.py): with a GradScaler the gradients are unscaled and checked, the overflow flag
/// all-reduced (max) over the model group and read by the host (an overflow skips the rest);
/// with clip_grad > 0 the sum of squares of the gradients this rank counts
/// (TransformerModel::duplicate_in_norm) is all-reduced over the model group and read by the host,
/// and the gradients are scaled when the norm exceeds clip_grad (a backend without values
/// assumes it does: early iterations clip); then Adam and the copy into the model-dtype
/// parameters; the host reads the loss at the end. With a pipeline the passes run in the
/// schedule's order
/// (pipeline_steps) with the stage-boundary sends on the pp_send stream and receives on the
/// pp_recv stream, so they progress concurrently (batched schedules: the host synchronizes
/// the device after each p2p call, as Megatron's p2p_communication of 2021-22 does); sent
/// tensors are freed once sent (Megatron's
/// deallocate_output_tensor); DP buckets fire in the last backward pass (ZeRO 0 and 1); the first
/// and last stage then sum the word embedding's gradient over the embedding group before the
/// optimizer step (Megatron's finalize_model_grads).
Tensor run_iteration(Backend& backend, TransformerModel& model, OptimizerState& optimizer,
                     const IterationConfig& config);

/// Whether a step with `config` and ZeRO stage `zero` gathers the parameters the previous step
/// updated at its start (IterationConfig::overlap_param_gather with ZeRO 1 or 2, DP > 1 and
/// an optimizer step), not after its own optimizer.
bool gathers_parameters_ahead(const IterationConfig& config, int zero);

/// With IterationConfig::overlap_param_gather, the gather the next step would have started
/// with, run after the last step (Megatron's final parameter sync before a checkpoint or
/// evaluation), so that every DP rank holds the updated parameters; otherwise nothing.
void gather_updated_parameters(Backend& backend, TransformerModel& model,
                               const OptimizerState& optimizer, const IterationConfig& config);

/// Runs one inference step: `config.micro_batches` forward passes one after another on a
/// forward-only model (TransformerOptions::forward_only), nothing else (no gradients, no reductions
/// over DP, no optimizer). Returns the loss as run_iteration does, so the two agree. With a
/// pipeline every schedule degenerates to "receive, forward, send" per pass
/// (inference_steps); the loss is undefined on a stage before the last.
Tensor run_inference(Backend& backend, TransformerModel& model, const IterationConfig& config);

}  // namespace trainsim
