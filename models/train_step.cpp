#include "models/train_step.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

namespace trainsim {

using program::MemoryCategory;
using program::Phase;
using program::Stream;

std::int64_t default_bucket_size(std::int64_t data_parallel) {
  return std::max<std::int64_t>(40'000'000, 1'000'000 * data_parallel);
}

namespace {

// Buckets of the routed experts' weights (`experts`) or of the other parameters, in reverse
// registration order, appended to `buckets`.
void add_buckets(std::span<const Parameter> parameters, std::int64_t bucket_size,
                 std::optional<std::size_t> alone, bool experts,
                 std::vector<GradientBucket>& buckets) {
  const CommGroup group = experts ? CommGroup::expert_data : CommGroup::data;
  GradientBucket current;
  current.group = group;
  const auto close = [&] {
    buckets.push_back(std::move(current));
    current = {};
    current.group = group;
  };
  for (std::size_t i = parameters.size(); i-- > 0;) {
    if (parameters[i].expert != experts) continue;
    if (alone && i == *alone) {
      if (!current.parameters.empty()) close();
      buckets.push_back({{i}, parameters[i].shape.numel(), group});
      continue;
    }
    // A model chunk's gradients never share a bucket with another's (Megatron: one DDP
    // buffer per chunk), so each chunk's buckets fire after its own last backward.
    if (!current.parameters.empty() &&
        parameters[current.parameters.back()].chunk != parameters[i].chunk) {
      close();
    }
    current.parameters.push_back(i);
    current.numel += parameters[i].shape.numel();
    if (current.numel >= bucket_size) close();
  }
  if (!current.parameters.empty()) buckets.push_back(std::move(current));
}

}  // namespace

std::vector<GradientBucket> make_buckets(std::span<const Parameter> parameters,
                                         std::int64_t bucket_size,
                                         std::optional<std::size_t> alone) {
  std::vector<GradientBucket> buckets;
  add_buckets(parameters, bucket_size, alone, false, buckets);
  add_buckets(parameters, bucket_size, alone, true, buckets);
  return buckets;
}

std::vector<GradientBucket> make_layer_units(std::span<const Parameter> parameters,
                                             std::optional<std::size_t> alone) {
  // The layers this rank holds (a pipeline stage holds some), last first.
  std::vector<std::int32_t> layers;
  for (const Parameter& p : parameters) {
    if (p.layer != program::Tag::kNoLayer) layers.push_back(p.layer);
  }
  std::sort(layers.begin(), layers.end(), std::greater<>());
  layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
  std::map<std::int32_t, std::size_t> unit_of;
  for (std::size_t u = 0; u < layers.size(); ++u)
    unit_of[layers[u]] = u;
  std::vector<GradientBucket> units(layers.size());
  GradientBucket rest;
  GradientBucket own;
  for (std::size_t i = parameters.size(); i-- > 0;) {
    const std::int32_t layer = parameters[i].layer;
    GradientBucket& unit = layer != program::Tag::kNoLayer ? units[unit_of.at(layer)]
                           : alone && i == *alone          ? own
                                                           : rest;
    unit.parameters.push_back(i);
    unit.numel += parameters[i].shape.numel();
  }
  if (!rest.parameters.empty()) units.push_back(std::move(rest));
  if (!own.parameters.empty()) units.push_back(std::move(own));
  return units;
}

void GradScaler::update(bool found_inf) {
  if (found_inf) {
    growth_tracker = 0;
    if (--hysteresis_tracker <= 0) scale = std::max(scale * backoff_factor, min_scale);
    return;
  }
  if (++growth_tracker == growth_interval) {
    growth_tracker = 0;
    hysteresis_tracker = hysteresis;
    scale *= growth_factor;
  }
}

void shard_model_state(TransformerOptions& options, int zero) {
  options.shard_gradients = zero >= 2;
  options.shard_parameters = zero >= 3;
}

OptimizerState make_optimizer_state(Backend& backend, TransformerModel& model,
                                    const OptimizerLayout& layout) {
  TransformerOptions expected = model.options();
  shard_model_state(expected, layout.zero);
  if (expected.shard_gradients != model.options().shard_gradients ||
      expected.shard_parameters != model.options().shard_parameters) {
    throw std::invalid_argument("make_optimizer_state: the model's sharding does not match ZeRO " +
                                std::to_string(layout.zero));
  }
  OptimizerState state;
  state.layout = layout;
  // Megatron scales the loss of fp16 models only; bf16 has fp32's range.
  if (model.shape().dtype == DType::fp16) state.grad_scaler.emplace();
  // A pipeline stage holding the tied word embedding but not the whole model shares it with
  // the embedding group: its own bucket.
  const std::optional<std::size_t> alone =
      model.shares_word_embedding() ? std::optional(model.word_embedding_index()) : std::nullopt;
  state.buckets = layout.zero >= 3 ? make_layer_units(model.parameters(), alone)
                                   : make_buckets(model.parameters(), layout.bucket_size, alone);
  backend.set_tag({program::Tag::kNoLayer, 0, 0, Phase::optimizer});
  if (layout.zero >= 1) {
    // Megatron's distributed optimizer: each DP rank owns one contiguous chunk of every
    // bucket (padded to a multiple of DP) and keeps fp32 master and moments for it only;
    // ZeRO 2 and 3 keep the gradients and parameters of that chunk only, too.
    for (const GradientBucket& bucket : state.buckets) {
      const std::int64_t n = layout.members(bucket);
      const std::int64_t chunk = (bucket.numel + n - 1) / n;
      const Shape shape{1, 1, chunk};
      AdamShard shard;
      shard.offset = layout.position(bucket) * chunk;
      shard.master =
          backend.allocate(shape, DType::fp32, MemoryCategory::optimizer_state, "shard.master");
      shard.m =
          backend.allocate(shape, DType::fp32, MemoryCategory::optimizer_state, "shard.adam_m");
      shard.v =
          backend.allocate(shape, DType::fp32, MemoryCategory::optimizer_state, "shard.adam_v");
      if (layout.zero >= 2) {
        shard.grad = backend.allocate(shape, DType::fp32, MemoryCategory::gradients, "shard.grad");
      }
      if (layout.zero >= 3) {
        shard.param =
            backend.allocate(shape, model.shape().dtype, MemoryCategory::parameters, "shard.param");
      }
      state.shards.push_back(std::move(shard));
    }
    return state;
  }
  for (const Parameter& p : model.parameters()) {
    const Shape shape = p.value.shape();
    AdamTensors t;
    t.param = p.value;
    t.grad = p.grad;
    t.master =
        backend.allocate(shape, DType::fp32, MemoryCategory::optimizer_state, p.name + ".master");
    t.m = backend.allocate(shape, DType::fp32, MemoryCategory::optimizer_state, p.name + ".adam_m");
    t.v = backend.allocate(shape, DType::fp32, MemoryCategory::optimizer_state, p.name + ".adam_v");
    state.tensors.push_back(std::move(t));
  }
  return state;
}

namespace {

/// One tensor (`member`: value or grad) of each parameter in `bucket`, in bucket order.
std::vector<Tensor> bucket_tensors(const GradientBucket& bucket, std::span<const Parameter> params,
                                   Tensor Parameter::*member) {
  std::vector<Tensor> out;
  out.reserve(bucket.parameters.size());
  for (std::size_t i : bucket.parameters)
    out.push_back(params[i].*member);
  return out;
}

std::vector<Tensor> bucket_grads(const GradientBucket& bucket, std::span<const Parameter> params) {
  return bucket_tensors(bucket, params, &Parameter::grad);
}

std::vector<Tensor> bucket_values(const GradientBucket& bucket, std::span<const Parameter> params) {
  return bucket_tensors(bucket, params, &Parameter::value);
}

// Bucket indices in the order the forward pass first reads them: by model chunk, then by the
// earliest use in the bucket: the embeddings of a stage that holds them before layer 0, the
// head's parameters (final norm, output layer, the last stage's copy of the tied word
// embedding) after every layer.
std::vector<std::size_t> forward_order(std::span<const GradientBucket> buckets,
                                       std::span<const Parameter> params, bool holds_embedding) {
  constexpr std::int64_t kAfterLayers = std::numeric_limits<std::int64_t>::max();
  const auto use = [&](const Parameter& p) -> std::int64_t {
    if (p.layer != program::Tag::kNoLayer) return p.layer;
    const bool embedding = p.name.starts_with("embedding.") && holds_embedding && p.chunk == 0;
    return embedding ? -1 : kAfterLayers;
  };
  std::vector<std::pair<std::int64_t, std::int64_t>> key(buckets.size());
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    std::pair<std::int64_t, std::int64_t> first{kAfterLayers, kAfterLayers};
    for (const std::size_t i : buckets[b].parameters)
      first =
          std::min(first, std::pair<std::int64_t, std::int64_t>{params[i].chunk, use(params[i])});
    key[b] = first;
  }
  std::vector<std::size_t> order(buckets.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
  return order;
}

// Every bucket's updated chunks to every DP rank, in the order of first use, on the dp stream.
void issue_parameter_gather(Backend& backend, const TransformerModel& model,
                            const OptimizerState& optimizer) {
  const std::span<const Parameter> params = model.parameters();
  for (const std::size_t b :
       forward_order(optimizer.buckets, params, model.options().part.embedding)) {
    const GradientBucket& bucket = optimizer.buckets[b];
    if (optimizer.layout.members(bucket) == 1) continue;
    backend.all_gather_flat(bucket_values(bucket, params), bucket.group, stream_of(bucket.group),
                            "dp.param.all_gather");
  }
}

// What the step does around the model's passes: launches each bucket's reduction as soon as
// all of its gradients are final (Megatron DDP with overlap_grad_reduce; DeepSpeed's
// reduce-bucket hooks), and with ZeRO 2 and 3 provides the gradient buffers and (3) gathers
// the parameters of each unit. With a pipeline schedule (run_pipeline) ZeRO 2 and 3 follow the
// run rule of the file comment in train_step.hpp: what a pass gathers or accumulates is kept
// while the rank's next compute pass runs the same chunk in the same direction.
class StepHooks final : public ParameterHooks {
 public:
  StepHooks(Backend& backend, TransformerModel& model, OptimizerState& optimizer,
            const IterationConfig& config)
      : backend_(backend),
        model_(model),
        params_(model.parameters()),
        optimizer_(optimizer),
        config_(config),
        zero_(optimizer.layout.zero),
        pipelined_(config.pipeline.pipelined()),
        bucket_of_(params_.size()),
        remaining_(optimizer.buckets.size()),
        gathered_(optimizer.buckets.size(), false) {
    const std::vector<GradientBucket>& buckets = optimizer.buckets;
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      for (std::size_t i : buckets[b].parameters)
        bucket_of_[i] = b;
    }
    if (zero_ < 3) return;
    for (std::size_t u = 0; u < buckets.size(); ++u) {
      const Parameter& first = params_[buckets[u].parameters.front()];
      if (first.layer == program::Tag::kNoLayer) {
        rest_units_.push_back(u);
      } else {
        unit_of_layer_[first.layer] = u;
        chunk_layers_[first.chunk].push_back(first.layer);
      }
    }
    for (auto& [chunk, layers] : chunk_layers_)
      std::sort(layers.begin(), layers.end());
  }

  /// ZeRO 0 and 1 reduce only after the last micro batch (no_sync before it).
  void begin_micro_batch(bool last) {
    launch_ = zero_ >= 2 || (last && config_.overlap_grad_reduce);
  }

  /// Before the backward pass of model chunk `chunk` (interleaved pipeline): only that
  /// chunk's buckets start a new count; `last`: its last backward, whose buckets reduce.
  void begin_chunk_backward(std::int64_t chunk, bool last) {
    chunk_ = chunk;
    begin_micro_batch(last);
  }

  /// Before every compute pass of a pipeline schedule: the pass, the rank's next compute pass
  /// and the first pass of its next run (none after the last). ZeRO 2 and 3 reduce a chunk's
  /// buckets in the last backward pass of a run of its backward passes (begin_chunk_backward
  /// must come first); ZeRO 3 prefetches the next run's first units from the run's first pass.
  void begin_pass(const PipelineStep& pass, std::optional<PipelineStep> next,
                  std::optional<PipelineStep> next_run) {
    pass_ = pass;
    next_ = next;
    next_run_ = next_run;
    if (zero_ >= 2 && pass.kind == PipelineStep::Kind::backward) launch_ = !run_continues();
  }

  /// After the last pass of a pipeline schedule: waits for the reductions still in flight
  /// (the passes do not, so that a run's reduce-scatter overlaps the following runs).
  void end_passes() { free_reduced(0); }

  void before_forward(std::int32_t layer) override {
    if (zero_ < 3) return;
    if (pipelined_) {
      before_pipelined_pass(layer);
      return;
    }
    gather(layer);
    // Forward order: the embedding unit, then layers 0, 1, ...
    const std::int32_t next = layer + 1;
    if (next < model_.shape().layers) gather(next);
  }

  void after_forward(std::int32_t layer) override {
    if (zero_ < 3) return;
    if (pipelined_) {
      after_pipelined_pass(layer);
    } else if (layer != program::Tag::kNoLayer) {
      release(layer);
    }
  }

  void before_backward(std::int32_t layer) override {
    if (layer == program::Tag::kNoLayer) {
      for (std::size_t b = 0; b < remaining_.size(); ++b) {
        const GradientBucket& bucket = optimizer_.buckets[b];
        if (pipelined_ && zero_ >= 2) {
          // A bucket may mix chunks (ZeRO 3's unit of the non-layer parameters on one stage):
          // count the gradients this chunk's pass finishes.
          const auto in_chunk =
              std::count_if(bucket.parameters.begin(), bucket.parameters.end(),
                            [&](std::size_t i) { return params_[i].chunk == chunk_; });
          if (in_chunk > 0) remaining_[b] = static_cast<std::size_t>(in_chunk);
        } else if (params_[bucket.parameters.front()].chunk == chunk_) {
          remaining_[b] = bucket.parameters.size();
        }
      }
    }
    if (zero_ < 3) return;
    if (pipelined_) {
      before_pipelined_pass(layer);
      return;
    }
    gather(layer);
    // Backward order: the embedding unit (already gathered), then layers L-1, ..., 0.
    const std::int32_t next = layer == program::Tag::kNoLayer
                                  ? static_cast<std::int32_t>(model_.shape().layers) - 1
                                  : layer - 1;
    if (next >= 0) gather(next);
  }

  // ZeRO 2 and 3: a zeroed full-size buffer for the bucket's gradients, from the first write
  // of one of them in the backward pass until the bucket's reduce-scatter.
  void before_gradient(std::size_t parameter_index) override {
    const std::size_t b = bucket_of_[parameter_index];
    const GradientBucket& bucket = optimizer_.buckets[b];
    // DeepSpeed's double-buffered reduction buckets: a new bucket reuses the memory of the
    // one before the last, waiting for its reduce-scatter, so that the transient gradients
    // stay bounded when the DP network is slower than the backward pass (which then stalls).
    free_reduced(1);
    for (std::size_t i : bucket.parameters) {
      Parameter& p = params_[i];
      p.grad =
          backend_.allocate(p.shape, DType::fp32, MemoryCategory::comm_buffers, p.name + ".grad");
    }
    backend_.zero(bucket_grads(bucket, params_), "dp.grad_bucket.zero");
  }

  void after_backward(std::int32_t layer) override {
    if (zero_ >= 3) {
      if (pipelined_) {
        after_pipelined_pass(layer);
      } else {
        release(layer);
      }
    }
    // The end of every backward pass waits for the reductions (DeepSpeed's
    // independent_gradient_partition_epilogue synchronizes; FSDP's final post-backward
    // callback waits for its reduce-scatter stream). A pipeline schedule waits once, after
    // its last pass (end_passes).
    if (layer == program::Tag::kNoLayer && !pipelined_) free_reduced(0);
  }

  void grad_ready(std::size_t parameter_index) override {
    const std::size_t b = bucket_of_[parameter_index];
    if (--remaining_[b] == 0 && launch_) reduce(b);
  }

  /// Reduces bucket `b` over its group (DP, or the experts' expert-data group): ZeRO 0 all-reduce,
  /// 1 reduce-scatter in place, 2 and 3 reduce-scatter into the shard and free the bucket.
  void reduce(std::size_t b) {
    const GradientBucket& bucket = optimizer_.buckets[b];
    // A group of one sums nothing (a model whose experts' group has members where DP has
    // none, or the other way round).
    if (zero_ < 2 && optimizer_.layout.members(bucket) == 1) return;
    if (zero_ == 0) {
      backend_.all_reduce(bucket_grads(bucket, params_), bucket.group, ReduceOp::sum,
                          stream_of(bucket.group), "dp.grad.all_reduce");
      return;
    }
    if (zero_ == 1) {
      backend_.reduce_scatter_flat(bucket_grads(bucket, params_), bucket.group,
                                   stream_of(bucket.group), "dp.grad.reduce_scatter");
      return;
    }
    std::vector<Tensor> sp_grads;
    for (std::size_t i : bucket.parameters) {
      if (params_[i].sequence_parallel) sp_grads.push_back(params_[i].grad);
    }
    if (!sp_grads.empty()) {
      backend_.all_reduce(sp_grads, CommGroup::tensor, ReduceOp::sum, stream_of(CommGroup::tensor),
                          "tp.sequence_parallel_grads.all_reduce");
    }
    backend_.reduce_scatter_accumulate(bucket_grads(bucket, params_), optimizer_.shards[b].grad,
                                       CommGroup::data, stream_of(CommGroup::data),
                                       "dp.grad.reduce_scatter");
    reducing_.push_back(take_gradients(b));
    // Without overlap the backward waits for each bucket (DeepSpeed without overlap_comm).
    if (!config_.overlap_grad_reduce) free_reduced(0);
  }

 private:
  using Kind = PipelineStep::Kind;

  // The next compute pass runs the same chunk in the same direction: what this pass gathered
  // or accumulated for the chunk stays.
  bool run_continues() const {
    return next_ && next_->kind == pass_.kind && next_->chunk == pass_.chunk;
  }

  // The parameters outside the layers (embeddings, final LayerNorm, the tied word embedding)
  // serve the passes of the chunk with the embedding and of the chunk with the head.
  bool uses_rest(std::int64_t chunk) const {
    const ModelPart& part = model_.options().part;
    return (part.embedding && chunk == 0) || (part.head && chunk == part.chunks - 1);
  }

  // ZeRO 3 with a pipeline schedule: a pass gathers what it uses, one unit ahead (its first
  // layer with the non-layer units; each layer the one after it; its last layer the first
  // units of the next run, so that their gather overlaps every pass of this run, as FSDP's
  // prefetch overlaps a layer: with layered's single-layer chunks, a run's m passes).
  void before_pipelined_pass(std::int32_t layer) {
    const bool forward = pass_.kind == Kind::forward;
    const std::vector<std::int32_t>& layers = chunk_layers_.at(pass_.chunk);
    if (layer == program::Tag::kNoLayer) {
      if (uses_rest(pass_.chunk)) gather(layer);
      gather(forward ? layers.front() : layers.back());
      return;
    }
    gather(layer);
    const auto at = std::find(layers.begin(), layers.end(), layer);
    if (forward && at + 1 != layers.end()) {
      gather(*(at + 1));
    } else if (!forward && at != layers.begin()) {
      gather(*(at - 1));
    } else if (next_run_) {
      const std::vector<std::int32_t>& after = chunk_layers_.at(next_run_->chunk);
      if (uses_rest(next_run_->chunk)) gather(program::Tag::kNoLayer);
      gather(next_run_->kind == Kind::forward ? after.front() : after.back());
    }
  }

  // Released after the last pass of a run; the non-layer units only by a pass that uses them
  // (another may have gathered them ahead for the next pass).
  void after_pipelined_pass(std::int32_t layer) {
    if (layer != program::Tag::kNoLayer) {
      if (!run_continues()) release(layer);
      return;
    }
    const bool kept = next_ && next_->kind == pass_.kind && uses_rest(next_->chunk);
    if (uses_rest(pass_.chunk) && !kept) release(layer);
  }

  // The units of `layer`: its own, or those of the parameters outside the layers.
  std::vector<std::size_t> units_of(std::int32_t layer) const {
    if (layer == program::Tag::kNoLayer) return rest_units_;
    return {unit_of_layer_.at(layer)};
  }

  // ZeRO 3: the unit's parameters gathered from the DP shards (issued on the dp stream, so a
  // prefetch overlaps the compute issued before its first use).
  void gather(std::int32_t layer) {
    for (const std::size_t u : units_of(layer)) {
      if (gathered_[u]) continue;
      gathered_[u] = true;
      const GradientBucket& unit = optimizer_.buckets[u];
      for (std::size_t i : unit.parameters) {
        Parameter& p = params_[i];
        p.value =
            backend_.allocate(p.shape, model_.shape().dtype, MemoryCategory::comm_buffers, p.name);
      }
      backend_.all_gather_shards(optimizer_.shards[u].param, bucket_values(unit, params_),
                                 CommGroup::data, stream_of(CommGroup::data),
                                 "dp.param.all_gather");
    }
  }

  // The bucket's gradient buffers, taken from the parameters (which then hold none).
  std::vector<Tensor> take_gradients(std::size_t b) {
    std::vector<Tensor> grads;
    for (std::size_t i : optimizer_.buckets[b].parameters)
      grads.push_back(std::move(params_[i].grad));
    return grads;
  }

  // Waits for the oldest scattering buckets until at most `keep` remain, freeing each on the
  // compute stream once its reduce-scatter is done.
  void free_reduced(std::size_t keep) {
    while (reducing_.size() > keep) {
      backend_.wait_for(Stream::compute, reducing_.front().front());
      reducing_.pop_front();
    }
  }

  void release(std::int32_t layer) {
    for (const std::size_t u : units_of(layer)) {
      gathered_[u] = false;
      for (std::size_t i : optimizer_.buckets[u].parameters)
        params_[i].value.reset();
    }
  }

  Backend& backend_;
  TransformerModel& model_;
  std::span<Parameter> params_;
  OptimizerState& optimizer_;
  const IterationConfig& config_;
  int zero_;
  bool pipelined_;
  bool launch_ = false;
  std::int64_t chunk_ = 0;                // model chunk of the backward pass in progress
  PipelineStep pass_{};                   // pipeline: the compute pass in progress
  std::optional<PipelineStep> next_;      // pipeline: the rank's next compute pass
  std::optional<PipelineStep> next_run_;  // pipeline: the first pass of the rank's next run
  std::vector<std::size_t> bucket_of_;
  std::vector<std::size_t> remaining_;  // gradients of each bucket not final yet
  std::vector<bool> gathered_;          // ZeRO 3: per unit
  // ZeRO 3: the unit of each layer this rank holds, the units outside the layers, and each
  // chunk's layers in forward order.
  std::map<std::int32_t, std::size_t> unit_of_layer_;
  std::vector<std::size_t> rest_units_;
  std::map<std::int64_t, std::vector<std::int32_t>> chunk_layers_;
  // ZeRO 2, 3: gradient buffers of buckets being reduce-scattered, oldest first.
  std::deque<std::vector<Tensor>> reducing_;
};

// Takes the tensor under `key` out of `map` (undefined if there is none).
Tensor take(std::map<std::int64_t, Tensor>& map, std::int64_t key) {
  const auto it = map.find(key);
  if (it == map.end()) return {};
  Tensor t = std::move(it->second);
  map.erase(it);
  return t;
}

bool is_pass(const PipelineStep& step) {
  return step.kind == PipelineStep::Kind::forward || step.kind == PipelineStep::Kind::backward;
}

// A batched p2p call (Megatron's batch_isend_irecv, its requests waited for and the device
// synchronized) ends before the next pass: the compute stream waits for its sends and its
// receives, also those the pass does not read (the next backward's gradient received with
// the next forward's input).
void wait_for_call(Backend& backend) {
  backend.stream_wait(Stream::compute, Stream::pp_send);
  backend.stream_wait(Stream::compute, Stream::pp_recv);
}

// The passes of one pipeline stage in its schedule's order (pipeline_steps), with the
// stage-boundary sends on the pp_send stream and receives on the pp_recv stream (the compute
// stream waits for the receive a pass needs and, batched, for the call before the pass).
// Accumulates the last stage's loss into `loss`.
void run_pipeline(Backend& backend, TransformerModel& model, StepHooks& hooks,
                  const IterationConfig& config, bool hooked, double backward_scale, Tensor& loss) {
  using Kind = PipelineStep::Kind;
  const PipelinePosition& pp = config.pipeline;
  const double loss_scale = 1.0 / static_cast<double>(config.global_tokens);
  const std::int64_t tokens = model.input_tokens();
  const std::int64_t parts = pp.scatter_parts;
  const std::int64_t chunks = pp.shape.chunks;
  Shape piece = model.boundary_shape();
  piece.rows /= parts;
  const bool inference = model.options().forward_only;
  const std::vector<PipelineStep> steps =
      inference ? inference_steps(pp.shape, pp.stage) : pipeline_steps(pp.shape, pp.stage);
  // What the transfers wait for besides their tensors (TransferOrder): batched, the next
  // pass waits for every transfer of the call before it, sends and receives.
  const bool batched = transfer_order(pp.shape.schedule) == TransferOrder::batched;
  // After each step, the rank's next compute pass and the first pass of its next run (another
  // chunk or direction): ZeRO 2 and 3 keep what a run of passes shares and prefetch for the
  // next run. One scan from the end, keeping the index of the next compute pass.
  std::vector<std::optional<PipelineStep>> next_pass(steps.size());
  std::vector<std::optional<PipelineStep>> next_run(steps.size());
  std::optional<std::size_t> following;
  for (std::size_t i = steps.size(); i-- > 0;) {
    if (following) {
      const PipelineStep& next = steps[*following];
      next_pass[i] = next;
      const bool same_run = next.kind == steps[i].kind && next.chunk == steps[i].chunk;
      next_run[i] = same_run ? next_run[*following] : next;
    }
    if (is_pass(steps[i])) following = i;
  }
  // Each chunk's buckets reduce in its last backward pass (Megatron's per-chunk grad sync).
  std::map<std::int64_t, std::int64_t> last_backward;  // chunk -> micro batch
  for (const PipelineStep& step : steps) {
    if (step.kind == Kind::backward) last_backward[step.chunk] = step.micro_batch;
  }
  // Tensors of one (micro batch, chunk) pass, by key micro batch x chunks + chunk.
  std::map<std::int64_t, ForwardState> states;
  std::map<std::int64_t, Tensor> inputs;        // received activations
  std::map<std::int64_t, Tensor> outputs;       // activations to send
  std::map<std::int64_t, Tensor> output_grads;  // received gradients
  std::map<std::int64_t, Tensor> input_grads;   // gradients to send
  std::map<std::int64_t, Tensor> labels;        // one stage: by micro batch, until the head
  // Megatron's scatter/gather: this rank's piece, all-gathered over TP on arrival; in a
  // batched call after the call's synchronize, as Megatron's _communicate gathers.
  struct Gather {
    Tensor* tensor;  // a node of one of the maps above: stable
    std::string name;
    program::Tag tag;
  };
  std::vector<Gather> gathers;
  const auto gather = [&](const Gather& g) {
    backend.set_tag(g.tag);
    *g.tensor = backend.all_gather(*g.tensor, CommGroup::tensor, stream_of(CommGroup::tensor),
                                   g.name + ".all_gather");
  };
  const auto receive = [&](Tensor& into, std::int64_t peer, const std::string& name,
                           const program::Tag& tag) {
    into = backend.recv(piece, model.shape().dtype, peer, Stream::pp_recv, name);
    if (parts == 1) return;
    gathers.push_back({&into, name, tag});
    if (!batched) {
      gather(gathers.back());
      gathers.clear();
    }
  };
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const PipelineStep& step = steps[i];
    const std::int64_t mb = step.micro_batch;
    const std::int64_t key = mb * chunks + step.chunk;
    // The model's first virtual stage reads the tokens, its last the labels and the loss.
    const bool embedding = pp.first() && step.chunk == 0;
    const bool head = pp.last() && step.chunk == chunks - 1;
    const bool forward = step.kind == Kind::forward || step.kind == Kind::send_forward ||
                         step.kind == Kind::recv_forward;
    const program::Tag tag{program::Tag::kNoLayer, static_cast<std::int32_t>(mb),
                           static_cast<std::int16_t>(step.chunk),
                           forward ? Phase::forward : Phase::backward};
    backend.set_tag(tag);
    switch (step.kind) {
      case Kind::recv_forward:
        receive(inputs[key], pp.previous, "pp.recv_forward", tag);
        break;
      case Kind::recv_backward:
        receive(output_grads[key], pp.next, "pp.recv_backward", tag);
        break;
      case Kind::send_forward:
        // Dropping the last handle frees the output once sent (deallocate_output_tensor).
        backend.send(take(outputs, key), pp.scatter_part, parts, pp.next, Stream::pp_send,
                     "pp.send_forward");
        break;
      case Kind::send_backward:
        backend.send(take(input_grads, key), pp.scatter_part, parts, pp.previous, Stream::pp_send,
                     "pp.send_backward");
        break;
      case Kind::forward: {
        if (batched) wait_for_call(backend);
        TokenBatch batch;
        if (pp.shape.stages == 1 && embedding != head) {
          // One stage (layered): the micro batch is read once, with chunk 0; the labels wait
          // for the last chunk.
          if (embedding) {
            batch = backend.load_micro_batch(mb, tokens, model.label_tokens());
            labels[mb] = std::move(batch.labels);
            batch.labels = Tensor{};
          } else {
            batch.labels = take(labels, mb);
          }
        } else if (embedding || head) {
          batch =
              backend.load_micro_batch(mb, embedding ? tokens : 0, head ? model.label_tokens() : 0);
        }
        hooks.begin_pass(step, next_pass[i], next_run[i]);
        ForwardState state =
            model.forward(std::move(batch), loss_scale, mb, &hooks, take(inputs, key), step.chunk);
        if (head) {
          if (!loss.defined()) {
            loss = state.loss;
          } else {
            backend.accumulate(loss, state.loss, "loss.accumulate");
          }
        } else if (pp.shape.stages == 1) {
          inputs[key + 1] = std::move(state.output);  // the next chunk, on this rank
        } else {
          outputs[key] = std::move(state.output);
        }
        if (!inference) states.emplace(key, std::move(state));
        break;
      }
      case Kind::backward: {
        if (batched) wait_for_call(backend);
        // ZeRO 0 and 1 reduce in the chunk's last backward pass (no_sync before it).
        hooks.begin_chunk_backward(step.chunk, mb == last_backward[step.chunk]);
        hooks.begin_pass(step, next_pass[i], next_run[i]);
        const auto it = states.find(key);
        ForwardState state = std::move(it->second);
        states.erase(it);
        Tensor dx = model.backward(std::move(state), backward_scale, hooked ? &hooks : nullptr,
                                   take(output_grads, key));
        if (embedding) break;
        if (pp.shape.stages == 1) {
          output_grads[key - 1] = std::move(dx);  // the previous chunk, on this rank
        } else {
          input_grads[key] = std::move(dx);
        }
        break;
      }
    }
    // Megatron's p2p calls of 2021-22 end with torch.cuda.synchronize() after their requests'
    // wait (a guard against a race of batch_isend_irecv): the host waits for the call and
    // everything issued before it, so it cannot run ahead into the next pass.
    if (batched && !is_pass(step) && (i + 1 == steps.size() || is_pass(steps[i + 1]))) {
      backend.synchronize(program::SyncPoint::p2p, "pp.synchronize");
      for (const Gather& g : gathers)
        gather(g);
      gathers.clear();
    }
  }
}

// The fp32 gradients the optimizer step updates on this rank, as element ranges: ZeRO 0 every
// parameter's; ZeRO >= 1 the parts of its shards that hold parameters (the padding left out;
// ZeRO 1: of the full reduced gradients, ZeRO 2 and 3: of the gradient shards). With
// `for_norm`, only those the rank counts in the global norm (TransformerModel::duplicate_in_norm):
// Megatron's grads_for_norm.
std::vector<TensorRange> step_gradients(const TransformerModel& model, const OptimizerState& optimizer,
                                        bool for_norm) {
  const std::span<const Parameter> params = model.parameters();
  const OptimizerLayout& layout = optimizer.layout;
  // With experts the norm is summed over every rank: with ZeRO 0 only the first rank of each
  // gradient group (of each expert-data group for the experts) counts the replicated sums.
  const auto replica = [&](std::size_t i) {
    if (!layout.experts || layout.zero != 0) return true;
    return (params[i].expert ? layout.expert_data_parallel_rank : layout.data_parallel_rank) == 0;
  };
  const auto counted = [&](std::size_t i) {
    return !for_norm || (!model.duplicate_in_norm(i) && replica(i));
  };
  std::vector<TensorRange> ranges;
  if (optimizer.layout.zero == 0) {
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (counted(i)) ranges.push_back(TensorRange::whole(params[i].grad));
    }
    return ranges;
  }
  for (std::size_t b = 0; b < optimizer.buckets.size(); ++b) {
    const AdamShard& shard = optimizer.shards[b];
    const std::int64_t begin = shard.offset;
    const std::int64_t end = begin + shard.master.numel();
    std::int64_t at = 0;  // the parameter's first element in the bucket's concatenation
    for (const std::size_t i : optimizer.buckets[b].parameters) {
      const std::int64_t n = params[i].shape.numel();
      const std::int64_t lo = std::max(at, begin);
      const std::int64_t hi = std::min(at + n, end);
      if (lo < hi && counted(i)) {
        ranges.push_back(optimizer.layout.zero == 1 ? TensorRange{params[i].grad, lo - at, hi - lo}
                                                    : TensorRange{shard.grad, lo - begin, hi - lo});
      }
      at += n;
    }
  }
  return ranges;
}

// A scalar all-reduced over the model group when it has other members; the compute stream
// then waits for it (torch.distributed.all_reduce without async_op: work.wait()).
void model_all_reduce(Backend& backend, Tensor& scalar, ReduceOp op, const IterationConfig& config,
                      std::string_view name) {
  if (config.model_parallel <= 1) return;
  backend.all_reduce({&scalar, 1}, CommGroup::model, op, stream_of(CommGroup::model), name);
  backend.stream_wait(Stream::compute, stream_of(CommGroup::model));
}

// Megatron's optimizer step before Adam (megatron/optimizer/optimizer.py, clip_grads.py):
// fp16 unscale and overflow check, then clipping by the global norm. False when the step is
// skipped (an overflow).
bool prepare_gradients(Backend& backend, TransformerModel& model, OptimizerState& optimizer,
                       const IterationConfig& config) {
  using program::SyncPoint;
  optimizer.grad_norm.reset();
  optimizer.skipped = false;
  if (!optimizer.grad_scaler && config.clip_grad <= 0.0) return true;
  const std::vector<TensorRange> grads = step_gradients(model, optimizer, false);
  if (optimizer.grad_scaler) {
    GradScaler& scaler = *optimizer.grad_scaler;
    Tensor found_inf = backend.unscale_and_check(grads, 1.0 / scaler.scale, "optimizer.unscale");
    model_all_reduce(backend, found_inf, ReduceOp::max, config, "optimizer.found_inf.all_reduce");
    // Without a value (meta) the usual case: no overflow.
    const bool overflow =
        backend.host_read(found_inf, SyncPoint::found_inf, "optimizer.found_inf.item")
            .value_or(0.0) > 0.0;
    scaler.update(overflow);
    if (overflow) {
      optimizer.skipped = true;
      return false;
    }
  }
  if (config.clip_grad > 0.0) {
    Tensor squares =
        backend.sum_of_squares(step_gradients(model, optimizer, true), "optimizer.grad_norm");
    model_all_reduce(backend, squares, ReduceOp::sum, config, "optimizer.grad_norm.all_reduce");
    const std::optional<double> sum =
        backend.host_read(squares, SyncPoint::grad_norm, "optimizer.grad_norm.item");
    if (sum) optimizer.grad_norm = std::sqrt(*sum);
    // clip_coeff = max_norm / (total_norm + 1e-6), applied when below 1. Without a value (meta,
    // a timed GPU run) the scale is recorded: the early iterations papers time clip (with
    // factor 1 the values stay as they are).
    const double coefficient = sum ? config.clip_grad / (*optimizer.grad_norm + 1e-6) : 1.0;
    if (!sum || coefficient < 1.0) backend.scale(grads, coefficient, "optimizer.clip");
  }
  return true;
}

// The training loop reads the reported loss every iteration (Megatron's training_log); only a
// rank with the head has one.
void read_loss(Backend& backend, const Tensor& loss) {
  if (loss.defined()) backend.host_read(loss, program::SyncPoint::loss, "loss.item");
}

}  // namespace

Tensor run_iteration(Backend& backend, TransformerModel& model, OptimizerState& optimizer,
                     const IterationConfig& config) {
  model.begin_step();
  const std::span<const Parameter> params = model.parameters();
  const std::vector<GradientBucket>& buckets = optimizer.buckets;
  const int zero = optimizer.layout.zero;
  const bool reduce = config.data_parallel > 1 || config.expert_data_parallel > 1;
  const double loss_scale = 1.0 / static_cast<double>(config.global_tokens);
  // fp16: the backward pass starts from the loss times the loss scale (Megatron's
  // grad_scaler), which only changes the cross entropy's backward factor.
  const double backward_scale =
      loss_scale * (optimizer.grad_scaler ? optimizer.grad_scaler->scale : 1.0);
  const std::int64_t tokens = model.input_tokens();

  // Megatron zeroes the contiguous gradient buffer at the start of every iteration (ZeRO 2
  // and 3: the gradient shards); it is optimizer bookkeeping, not forward work.
  backend.set_tag({program::Tag::kNoLayer, 0, 0, Phase::optimizer});
  if (zero >= 2) {
    std::vector<Tensor> shard_grads;
    for (const AdamShard& shard : optimizer.shards)
      shard_grads.push_back(shard.grad);
    backend.zero(shard_grads, "grads.zero");
  } else {
    for (const GradientBucket& bucket : buckets) {
      backend.zero(bucket_grads(bucket, params), "grads.zero");
    }
  }

  // --overlap-param-gather: the previous step's updated chunks come back to every DP rank on
  // the dp stream, each bucket before the forward pass first reads it (Megatron dispatches them
  // from its forward pre-hooks, one ahead; here all at once, in the order of first use, and
  // each first read waits for its own), instead of after the optimizer.
  const bool gather_ahead = gathers_parameters_ahead(config, zero);
  if (gather_ahead) {
    backend.set_tag({program::Tag::kNoLayer, 0, 0, Phase::forward});
    issue_parameter_gather(backend, model, optimizer);
  }

  // ZeRO 2 and 3 reduce in every micro batch, also with DP 1 (then a local add into the shard).
  const bool hooked = zero >= 2 || reduce;
  StepHooks hooks(backend, model, optimizer, config);
  Tensor loss;
  if (config.pipeline.pipelined()) {
    run_pipeline(backend, model, hooks, config, hooked, backward_scale, loss);
    hooks.end_passes();
  }
  for (std::int64_t mb = 0; mb < config.micro_batches && !config.pipeline.pipelined(); ++mb) {
    hooks.begin_micro_batch(mb + 1 == config.micro_batches);
    backend.set_tag({program::Tag::kNoLayer, static_cast<std::int32_t>(mb), 0, Phase::forward});
    ForwardState state = model.forward(backend.load_micro_batch(mb, tokens, model.label_tokens()),
                                       loss_scale, mb, &hooks);
    if (!loss.defined()) {
      loss = state.loss;
    } else {
      backend.accumulate(loss, state.loss, "loss.accumulate");
    }
    model.backward(std::move(state), backward_scale, hooked ? &hooks : nullptr);
  }

  const auto last_mb = static_cast<std::int32_t>(config.micro_batches - 1);
  std::vector<Tensor> sp_grads;
  if (zero < 2) {
    if (reduce && !config.overlap_grad_reduce) {
      backend.set_tag({program::Tag::kNoLayer, last_mb, 0, Phase::backward});
      backend.stream_wait(Stream::dp, Stream::compute);
      for (std::size_t b = 0; b < buckets.size(); ++b)
        hooks.reduce(b);
    }
    // finalize_model_grads: gradients of sequence-parallel parameters are partial per TP
    // rank; one fused all-reduce over TP.
    for (const Parameter& p : params) {
      if (p.sequence_parallel) sp_grads.push_back(p.grad);
    }
    if (!sp_grads.empty()) {
      backend.set_tag({program::Tag::kNoLayer, last_mb, 0, Phase::backward});
      backend.stream_wait(Stream::tp, Stream::compute);
      backend.all_reduce(sp_grads, CommGroup::tensor, ReduceOp::sum, stream_of(CommGroup::tensor),
                         "tp.sequence_parallel_grads.all_reduce");
    }
  }
  // Megatron's embedding group: the first and last pipeline stages each hold the tied word
  // embedding; after the DP reduction (same stream, in order) they sum its gradient.
  const bool shared_embedding = config.pipeline.shape.stages > 1 && model.shares_word_embedding();
  if (shared_embedding) {
    backend.set_tag({program::Tag::kNoLayer, last_mb, 0, Phase::backward});
    backend.stream_wait(Stream::dp, Stream::compute);
    // ZeRO 2 and 3: the embedding's own bucket has the same shard on both stages; its reduced
    // shard is what they sum.
    Tensor grad = params[model.word_embedding_index()].grad;
    if (zero >= 2) {
      const auto own = std::find_if(buckets.begin(), buckets.end(), [&](const GradientBucket& b) {
        return b.parameters == std::vector{model.word_embedding_index()};
      });
      if (own == buckets.end())
        throw std::logic_error("run_iteration: the shared word embedding has no bucket of its own");
      grad = optimizer.shards[static_cast<std::size_t>(own - buckets.begin())].grad;
    }
    backend.all_reduce({&grad, 1}, CommGroup::embedding, ReduceOp::sum,
                       stream_of(CommGroup::embedding), "embedding.grad.all_reduce");
  }
  if (!config.optimizer_step) {
    if (shared_embedding) backend.stream_wait(Stream::compute, Stream::dp);
    return loss;
  }

  // finish_grad_sync: the optimizer waits for every bucket.
  backend.set_tag({program::Tag::kNoLayer, last_mb, 0, Phase::optimizer});
  if (reduce || zero >= 2 || shared_embedding) backend.stream_wait(Stream::compute, Stream::dp);
  if (!sp_grads.empty()) backend.stream_wait(Stream::compute, Stream::tp);
  if (!prepare_gradients(backend, model, optimizer, config)) {
    read_loss(backend, loss);
    return loss;  // an overflow: Megatron skips the step
  }
  if (zero == 0) {
    for (const GradientBucket& bucket : buckets) {
      std::vector<AdamTensors> tensors;
      tensors.reserve(bucket.parameters.size());
      for (std::size_t i : bucket.parameters)
        tensors.push_back(optimizer.tensors[i]);
      backend.adam_step(tensors, config.adam, "optimizer.adam");
    }
  } else if (zero == 3) {
    // Adam on the shards; the next forward gathers the updated parameters.
    for (const AdamShard& shard : optimizer.shards) {
      const AdamTensors t{shard.param, shard.grad, shard.master, shard.m, shard.v};
      backend.adam_step({&t, 1}, config.adam, "optimizer.adam");
    }
  } else {
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      const AdamShard& shard = optimizer.shards[b];
      const std::vector<Tensor> values = bucket_values(buckets[b], params);
      // ZeRO 1 reads its chunk of the full reduced gradients, ZeRO 2 its gradient shard.
      if (zero == 1) {
        backend.adam_step_flat(values, bucket_grads(buckets[b], params), shard.offset, shard.master,
                               shard.m, shard.v, shard.offset, config.adam, "optimizer.adam");
      } else {
        backend.adam_step_flat(values, {&shard.grad, 1}, 0, shard.master, shard.m, shard.v,
                               shard.offset, config.adam, "optimizer.adam");
      }
      // The updated bf16 chunks go back to every DP rank (with --overlap-param-gather, in the
      // next step's forward pass).
      if (optimizer.layout.members(buckets[b]) > 1 && !gather_ahead) {
        backend.all_gather_flat(values, buckets[b].group, stream_of(buckets[b].group),
                                "dp.param.all_gather");
      }
    }
  }
  read_loss(backend, loss);
  return loss;
}

bool gathers_parameters_ahead(const IterationConfig& config, int zero) {
  // With DP 1 (and no expert-data group) nothing is gathered, without an optimizer step
  // nothing was updated.
  return config.overlap_param_gather && config.optimizer_step &&
         (config.data_parallel > 1 || config.expert_data_parallel > 1) && (zero == 1 || zero == 2);
}

void gather_updated_parameters(Backend& backend, TransformerModel& model,
                               const OptimizerState& optimizer, const IterationConfig& config) {
  if (!gathers_parameters_ahead(config, optimizer.layout.zero)) return;
  issue_parameter_gather(backend, model, optimizer);
  backend.stream_wait(program::Stream::compute, stream_of(CommGroup::data));
}

Tensor run_inference(Backend& backend, TransformerModel& model, const IterationConfig& config) {
  if (!model.options().forward_only) {
    throw std::invalid_argument("run_inference: the model keeps training state (not forward_only)");
  }
  model.begin_step();
  Tensor loss;
  if (config.pipeline.pipelined()) {
    // The schedule's forward passes alone (inference_steps); nothing to gather or reduce.
    OptimizerState none;
    StepHooks hooks(backend, model, none, config);
    run_pipeline(backend, model, hooks, config, false, 0.0, loss);
    return loss;
  }
  const double loss_scale = 1.0 / static_cast<double>(config.global_tokens);
  const std::int64_t tokens = model.input_tokens();
  for (std::int64_t mb = 0; mb < config.micro_batches; ++mb) {
    backend.set_tag({program::Tag::kNoLayer, static_cast<std::int32_t>(mb), 0, Phase::forward});
    ForwardState state = model.forward(backend.load_micro_batch(mb, tokens, model.label_tokens()),
                                       loss_scale, mb, nullptr);
    if (!loss.defined()) {
      loss = std::move(state.loss);
    } else {
      backend.accumulate(loss, state.loss, "loss.accumulate");
    }
  }
  return loss;
}

}  // namespace trainsim
