#include "models/train_step.hpp"

#include <algorithm>

namespace trainsim {

using program::MemoryCategory;
using program::Phase;
using program::Stream;

std::int64_t default_bucket_size(std::int64_t data_parallel) {
  return std::max<std::int64_t>(40'000'000, 1'000'000 * data_parallel);
}

std::vector<GradientBucket> make_buckets(std::span<const Parameter> parameters,
                                         std::int64_t bucket_size) {
  std::vector<GradientBucket> buckets;
  GradientBucket current;
  for (std::size_t i = parameters.size(); i-- > 0;) {
    current.parameters.push_back(i);
    current.numel += parameters[i].grad.numel();
    if (current.numel >= bucket_size) {
      buckets.push_back(std::move(current));
      current = {};
    }
  }
  if (!current.parameters.empty()) buckets.push_back(std::move(current));
  return buckets;
}

OptimizerState make_optimizer_state(Backend& backend, GptModel& model,
                                    const OptimizerLayout& layout) {
  OptimizerState state;
  state.layout = layout;
  state.buckets = make_buckets(model.parameters(), layout.bucket_size);
  backend.set_tag({program::Tag::kNoLayer, 0, 0, Phase::optimizer});
  if (layout.zero >= 1) {
    // Megatron's distributed optimizer: each DP rank owns one contiguous chunk of every
    // bucket (padded to a multiple of DP) and keeps fp32 master and moments for it only.
    const std::int64_t n = layout.data_parallel;
    for (const GradientBucket& bucket : state.buckets) {
      const std::int64_t chunk = (bucket.numel + n - 1) / n;
      const Shape shape{1, 1, chunk};
      AdamShard shard;
      shard.offset = layout.data_parallel_rank * chunk;
      shard.master =
          backend.allocate(shape, DType::fp32, MemoryCategory::optimizer_state, "shard.master");
      shard.m =
          backend.allocate(shape, DType::fp32, MemoryCategory::optimizer_state, "shard.adam_m");
      shard.v =
          backend.allocate(shape, DType::fp32, MemoryCategory::optimizer_state, "shard.adam_v");
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

std::vector<Tensor> bucket_grads(const GradientBucket& bucket, std::span<const Parameter> params) {
  std::vector<Tensor> grads;
  grads.reserve(bucket.parameters.size());
  for (std::size_t i : bucket.parameters)
    grads.push_back(params[i].grad);
  return grads;
}

std::vector<Tensor> bucket_values(const GradientBucket& bucket, std::span<const Parameter> params) {
  std::vector<Tensor> values;
  values.reserve(bucket.parameters.size());
  for (std::size_t i : bucket.parameters)
    values.push_back(params[i].value);
  return values;
}

// Launches a bucket's all-reduce as soon as all of its gradients are final (Megatron DDP with
// overlap_grad_reduce).
class BucketLauncher final : public GradReadyListener {
 public:
  BucketLauncher(Backend& backend, std::span<const Parameter> params,
                 const std::vector<GradientBucket>& buckets, bool scatter)
      : backend_(backend),
        params_(params),
        buckets_(buckets),
        scatter_(scatter),
        bucket_of_(params.size()) {
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      remaining_.push_back(buckets[b].parameters.size());
      for (std::size_t i : buckets[b].parameters)
        bucket_of_[i] = b;
    }
  }

  void grad_ready(std::size_t parameter_index) override {
    const std::size_t b = bucket_of_[parameter_index];
    if (--remaining_[b] == 0) launch(b);
  }

  void launch(std::size_t b) {
    const std::vector<Tensor> grads = bucket_grads(buckets_[b], params_);
    if (scatter_) {
      backend_.reduce_scatter_flat(grads, CommGroup::data, Stream::dp, "dp.grad.reduce_scatter");
    } else {
      backend_.all_reduce(grads, CommGroup::data, ReduceOp::sum, Stream::dp, "dp.grad.all_reduce");
    }
  }

 private:
  Backend& backend_;
  std::span<const Parameter> params_;
  const std::vector<GradientBucket>& buckets_;
  bool scatter_;
  std::vector<std::size_t> bucket_of_;
  std::vector<std::size_t> remaining_;
};

}  // namespace

Tensor run_iteration(Backend& backend, GptModel& model, OptimizerState& optimizer,
                     const IterationConfig& config) {
  const std::span<const Parameter> params = model.parameters();
  const std::vector<GradientBucket>& buckets = optimizer.buckets;
  const bool sharded = optimizer.layout.zero >= 1;
  const bool reduce = config.data_parallel > 1;
  const double loss_scale = 1.0 / static_cast<double>(config.global_tokens);
  const std::int64_t tokens = model.shape().seq_len * model.shape().micro_batch;

  // Megatron zeroes the contiguous gradient buffer at the start of every iteration; it is
  // optimizer bookkeeping, not forward work.
  backend.set_tag({program::Tag::kNoLayer, 0, 0, Phase::optimizer});
  for (const GradientBucket& bucket : buckets) {
    backend.zero(bucket_grads(bucket, params), "grads.zero");
  }

  BucketLauncher launcher(backend, params, buckets, sharded);
  Tensor loss;
  for (std::int64_t mb = 0; mb < config.micro_batches; ++mb) {
    backend.set_tag({program::Tag::kNoLayer, static_cast<std::int32_t>(mb), 0, Phase::forward});
    ForwardState state =
        model.forward(backend.load_micro_batch(mb, tokens, model.label_tokens()), loss_scale, mb);
    if (!loss.defined()) {
      loss = state.loss;
    } else {
      backend.accumulate(loss, state.loss, "loss.accumulate");
    }
    // Gradients are reduced only after the last micro batch (no_sync before it).
    const bool last = mb + 1 == config.micro_batches;
    const bool hook = last && reduce && config.overlap_grad_reduce;
    model.backward(std::move(state), loss_scale, hook ? &launcher : nullptr);
  }

  const auto last_mb = static_cast<std::int32_t>(config.micro_batches - 1);
  if (reduce && !config.overlap_grad_reduce) {
    backend.set_tag({program::Tag::kNoLayer, last_mb, 0, Phase::backward});
    backend.stream_wait(Stream::dp, Stream::compute);
    for (std::size_t b = 0; b < buckets.size(); ++b)
      launcher.launch(b);
  }
  // finalize_model_grads: gradients of sequence-parallel parameters are partial per TP rank;
  // one fused all-reduce over TP.
  std::vector<Tensor> sp_grads;
  for (const Parameter& p : params) {
    if (p.sequence_parallel) sp_grads.push_back(p.grad);
  }
  if (!sp_grads.empty()) {
    backend.set_tag({program::Tag::kNoLayer, last_mb, 0, Phase::backward});
    backend.stream_wait(Stream::tp, Stream::compute);
    backend.all_reduce(sp_grads, CommGroup::tensor, ReduceOp::sum, Stream::tp,
                       "tp.sequence_parallel_grads.all_reduce");
  }
  if (config.optimizer_step && sharded) {
    backend.set_tag({program::Tag::kNoLayer, last_mb, 0, Phase::optimizer});
    if (reduce) backend.stream_wait(Stream::compute, Stream::dp);
    if (!sp_grads.empty()) backend.stream_wait(Stream::compute, Stream::tp);
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      const AdamShard& shard = optimizer.shards[b];
      const std::vector<Tensor> values = bucket_values(buckets[b], params);
      backend.adam_step_flat(values, bucket_grads(buckets[b], params), shard.master, shard.m,
                             shard.v, shard.offset, config.adam, "optimizer.adam");
      // The updated bf16 chunks go back to every DP rank.
      if (reduce) {
        backend.all_gather_flat(values, CommGroup::data, Stream::dp, "dp.param.all_gather");
      }
    }
  } else if (config.optimizer_step) {
    backend.set_tag({program::Tag::kNoLayer, last_mb, 0, Phase::optimizer});
    // finish_grad_sync: the optimizer waits for every bucket.
    if (reduce) backend.stream_wait(Stream::compute, Stream::dp);
    if (!sp_grads.empty()) backend.stream_wait(Stream::compute, Stream::tp);
    for (const GradientBucket& bucket : buckets) {
      std::vector<AdamTensors> tensors;
      tensors.reserve(bucket.parameters.size());
      for (std::size_t i : bucket.parameters)
        tensors.push_back(optimizer.tensors[i]);
      backend.adam_step(tensors, config.adam, "optimizer.adam");
    }
  }
  return loss;
}

}  // namespace trainsim
