#include "models/gpt.hpp"

#include <stdexcept>
#include <utility>

#include "models/errors.hpp"

namespace trainsim {

using program::MemoryCategory;
using program::Phase;
using program::Stream;

namespace {

std::string layer_name(std::size_t layer, const char* what) {
  return "layers." + std::to_string(layer) + "." + what;
}

// Without a training step that shards state, nothing needs to happen around the passes.
class NoHooks final : public ParameterHooks {
 public:
  void before_forward(std::int32_t) override {}
  void after_forward(std::int32_t) override {}
  void before_backward(std::int32_t) override {}
  void before_gradient(std::size_t) override {}
  void after_backward(std::int32_t) override {}
  void grad_ready(std::size_t) override {}
};

// The shard of a full shape that one TP rank holds.
Shape local_shape(Shape full, Split split, std::int64_t tp) {
  if (split == Split::rows) full.rows /= tp;
  if (split == Split::columns) full.cols /= tp;
  return full;
}

}  // namespace

GptModel::GptModel(Backend& backend, const GptShape& shape, TensorParallelPosition tp,
                   GptOptions options)
    : backend_(backend), shape_(shape), tp_(tp), options_(options) {
  const std::int64_t t = tp.size;
  if (shape.heads % t != 0 || shape.ffn % t != 0 || shape.vocab % t != 0 ||
      shape.hidden % shape.heads != 0) {
    throw Infeasible("gpt: heads (" + std::to_string(shape.heads) + "), ffn (" +
                     std::to_string(shape.ffn) + ") and padded vocabulary (" +
                     std::to_string(shape.vocab) + ") must be divisible by the TP size (" +
                     std::to_string(t) + ") and hidden by heads");
  }
  if (options.sequence_parallel && (t < 2 || shape.seq_len % t != 0)) {
    throw Infeasible("gpt: sequence parallelism needs TP > 1 (got " + std::to_string(t) +
                     ") and seq_len (" + std::to_string(shape.seq_len) +
                     ") divisible by the TP size");
  }
  attention_ = {shape.seq_len, shape.micro_batch, shape.heads / t, shape.hidden / shape.heads};
  backend_.set_tag({program::Tag::kNoLayer, 0, 0, Phase::forward});

  const std::int64_t h = shape.hidden;
  const std::int64_t f = shape.ffn;
  const std::int32_t none = program::Tag::kNoLayer;
  const Split rep = Split::replicated;
  // With SP these run on the sequence shard: their gradients are partial per TP rank.
  const bool sp = options.sequence_parallel;
  word_embedding_ = add_parameter("embedding.word", {1, shape.vocab, h}, Split::rows, none);
  position_embedding_ = add_parameter("embedding.position", {1, shape.seq_len, h}, rep, none, sp);
  for (std::size_t l = 0; l < static_cast<std::size_t>(shape.layers); ++l) {
    const auto tag = static_cast<std::int32_t>(l);
    LayerParams p{};
    p.ln1_gamma = add_parameter(layer_name(l, "attn.ln.gamma"), {1, 1, h}, rep, tag, sp);
    p.ln1_beta = add_parameter(layer_name(l, "attn.ln.beta"), {1, 1, h}, rep, tag, sp);
    p.qkv_weight =
        add_parameter(layer_name(l, "attn.qkv.weight"), {1, h, 3 * h}, Split::columns, tag);
    p.qkv_bias = add_parameter(layer_name(l, "attn.qkv.bias"), {1, 1, 3 * h}, Split::columns, tag);
    p.proj_weight = add_parameter(layer_name(l, "attn.proj.weight"), {1, h, h}, Split::rows, tag);
    p.proj_bias = add_parameter(layer_name(l, "attn.proj.bias"), {1, 1, h}, rep, tag, sp);
    p.ln2_gamma = add_parameter(layer_name(l, "mlp.ln.gamma"), {1, 1, h}, rep, tag, sp);
    p.ln2_beta = add_parameter(layer_name(l, "mlp.ln.beta"), {1, 1, h}, rep, tag, sp);
    p.fc1_weight = add_parameter(layer_name(l, "mlp.fc1.weight"), {1, h, f}, Split::columns, tag);
    p.fc1_bias = add_parameter(layer_name(l, "mlp.fc1.bias"), {1, 1, f}, Split::columns, tag);
    p.fc2_weight = add_parameter(layer_name(l, "mlp.fc2.weight"), {1, f, h}, Split::rows, tag);
    p.fc2_bias = add_parameter(layer_name(l, "mlp.fc2.bias"), {1, 1, h}, rep, tag, sp);
    layer_params_.push_back(p);
  }
  final_gamma_ = add_parameter("final.ln.gamma", {1, 1, h}, rep, none, sp);
  final_beta_ = add_parameter("final.ln.beta", {1, 1, h}, rep, none, sp);
}

std::size_t GptModel::add_parameter(std::string name, Shape full_shape, Split split,
                                    std::int32_t layer, bool sequence_parallel) {
  Parameter p;
  p.shape = local_shape(full_shape, split, tp_.size);
  if (!options_.shard_parameters) {
    p.value = backend_.allocate(p.shape, shape_.dtype, MemoryCategory::parameters, name);
  }
  // Megatron with bf16 keeps fp32 main gradients (accumulate_allreduce_grads_in_fp32).
  if (!options_.shard_gradients) {
    p.grad = backend_.allocate(p.shape, DType::fp32, MemoryCategory::gradients, name + ".grad");
  }
  p.name = std::move(name);
  p.full_shape = full_shape;
  p.split = split;
  p.layer = layer;
  p.sequence_parallel = sequence_parallel;
  parameters_.push_back(std::move(p));
  return parameters_.size() - 1;
}

void GptModel::set_tag(std::int32_t layer, Phase phase) {
  backend_.set_tag({layer, micro_batch_, 0, phase});
}

void GptModel::ready(std::size_t index) {
  hooks_->grad_ready(index);
}

Tensor& GptModel::grad(std::size_t index) {
  Tensor& g = parameters_[index].grad;
  if (!g.defined()) hooks_->before_gradient(index);
  return g;
}

void GptModel::attach(ParameterHooks* hooks) {
  static NoHooks none;
  if (hooks == nullptr && (options_.shard_gradients || options_.shard_parameters)) {
    throw std::invalid_argument("gpt: sharded gradients or parameters need ParameterHooks");
  }
  hooks_ = hooks != nullptr ? hooks : &none;
}

Tensor GptModel::gather_sequence(const Tensor& x, const char* name) {
  if (!sequence_parallel()) return x;
  return backend_.all_gather(x, CommGroup::tensor, Stream::tp, name);
}

Tensor GptModel::reduce_output(Tensor partial, const char* name) {
  if (tp_.size == 1) return partial;
  if (sequence_parallel()) {
    return backend_.reduce_scatter(partial, CommGroup::tensor, Stream::tp, name);
  }
  backend_.all_reduce({&partial, 1}, CommGroup::tensor, ReduceOp::sum, Stream::tp, name);
  return partial;
}

Tensor GptModel::column_backward(const Tensor& dy, const Tensor& x_saved, std::size_t weight,
                                 bool transpose_w, const char* name) {
  Backend& b = backend_;
  const std::string n(name);
  // Megatron's LinearWithGradAccumulationAndAsyncCommunication: the input was saved
  // sequence-sharded; its all-gather runs on the TP stream while the dgrad GEMM computes.
  Tensor x = sequence_parallel()
                 ? b.all_gather(x_saved, CommGroup::tensor, Stream::tp, n + ".input.all_gather")
                 : x_saved;
  Tensor dx = b.matmul(dy, value(weight), false, !transpose_w, n + ".dgrad");
  // f's backward (all-reduce) or g's (reduce-scatter), overlapped with the wgrad GEMM.
  if (sequence_parallel()) {
    dx = b.reduce_scatter(dx, CommGroup::tensor, Stream::tp, n + ".dgrad.reduce_scatter");
  } else if (tp_.size > 1) {
    b.all_reduce({&dx, 1}, CommGroup::tensor, ReduceOp::sum, Stream::tp, n + ".dgrad.all_reduce");
  }
  if (transpose_w) {
    b.matmul_accumulate(dy, x, true, false, grad(weight), n + ".wgrad");
  } else {
    b.matmul_accumulate(x, dy, true, false, grad(weight), n + ".wgrad");
  }
  return dx;
}

ForwardState GptModel::forward(TokenBatch batch, double loss_scale, std::int64_t micro_batch_index,
                               ParameterHooks* hooks) {
  Backend& b = backend_;
  const bool tp = tp_.size > 1;
  const std::int32_t none = program::Tag::kNoLayer;
  attach(hooks);
  micro_batch_ = static_cast<std::int32_t>(micro_batch_index);
  ForwardState state;
  state.micro_batch_index = micro_batch_index;
  set_tag(none, Phase::forward);
  hooks_->before_forward(none);
  b.mark_saved(batch.tokens);
  b.mark_saved(batch.labels);

  // Vocabulary-parallel embedding: masked lookup, then g: all-reduce over TP, or with SP a
  // reduce-scatter to the sequence shard (§1.4).
  Tensor word =
      b.embedding_lookup(batch.tokens, value(word_embedding_), vocab_begin(), "embedding.lookup");
  word = reduce_output(std::move(word),
                       sequence_parallel() ? "embedding.reduce_scatter" : "embedding.all_reduce");
  b.add_position_embedding(word, value(position_embedding_), shape_.micro_batch, first_position(),
                           "embedding.position");
  DropoutResult embedded = b.dropout(word, shape_.hidden_dropout, "embedding.dropout");
  word.reset();
  b.mark_saved(embedded.y);
  b.mark_saved(embedded.mask);
  state.embedding_dropout_mask = std::move(embedded.mask);

  Tensor x = std::move(embedded.y);
  state.layers.resize(layer_params_.size());
  const bool full = options_.recompute == Recompute::full;
  for (std::size_t l = 0; l < layer_params_.size(); ++l) {
    const auto tag = static_cast<std::int32_t>(l);
    set_tag(tag, Phase::forward);
    hooks_->before_forward(tag);
    x = layer_forward(l, x, state.layers[l], !full);
    hooks_->after_forward(tag);
    if (full) {
      // Full recomputation keeps only the layer input (Megatron's checkpointed layer).
      Tensor input = std::move(state.layers[l].x);
      state.layers[l] = LayerSaved{};
      state.layers[l].x = std::move(input);
    }
  }

  set_tag(none, Phase::forward);
  LayerNormResult final_ln = b.layer_norm(x, value(final_gamma_), value(final_beta_), "final.ln");
  b.mark_saved(final_ln.y);
  b.mark_saved(final_ln.stats);
  // Output layer: f (identity forward; with SP an all-gather), column-parallel over the
  // vocabulary, tied weight.
  Tensor logits;
  {
    const Tensor in = gather_sequence(final_ln.y, "output.all_gather");
    logits = b.matmul(in, value(word_embedding_), false, true, "output.logits");
  }
  // Megatron computes the cross entropy in fp32 (fp16_lm_cross_entropy off).
  Tensor logits32 = b.cast(logits, DType::fp32, "loss.cast");
  logits.reset();
  Tensor max = b.row_max(logits32, "loss.max");
  if (tp)
    b.all_reduce({&max, 1}, CommGroup::tensor, ReduceOp::max, Stream::tp, "loss.max.all_reduce");
  CrossEntropyStats stats =
      b.cross_entropy_stats(logits32, max, batch.labels, vocab_begin(), "loss.exp_sum");
  max.reset();
  if (tp) {
    b.all_reduce({&stats.target_logit, 1}, CommGroup::tensor, ReduceOp::sum, Stream::tp,
                 "loss.target.all_reduce");
    b.all_reduce({&stats.sum_exp, 1}, CommGroup::tensor, ReduceOp::sum, Stream::tp,
                 "loss.sum_exp.all_reduce");
  }
  state.loss = b.cross_entropy_loss(logits32, stats, loss_scale, "loss.softmax");
  b.mark_saved(logits32);
  state.softmax = std::move(logits32);
  state.final_x = std::move(x);
  state.final_ln_y = std::move(final_ln.y);
  state.final_ln_stats = std::move(final_ln.stats);
  state.batch = std::move(batch);
  hooks_->after_forward(none);
  hooks_ = nullptr;
  return state;
}

Tensor GptModel::attention_core(LayerSaved& s, bool keep) {
  Backend& b = backend_;
  Tensor scores = b.attention_scores(s.qkv, attention_, "attn.scores");
  s.probs = b.softmax(scores, "attn.softmax");
  scores.reset();
  mark(s.probs, keep);
  DropoutResult dropped = b.dropout(s.probs, shape_.attention_dropout, "attn.dropout");
  s.probs_dropped = std::move(dropped.y);
  s.attn_dropout_mask = std::move(dropped.mask);
  mark(s.probs_dropped, keep);
  mark(s.attn_dropout_mask, keep);
  Tensor context = b.attention_context(s.probs_dropped, s.qkv, attention_, "attn.context");
  if (!keep) {
    s.probs.reset();
    s.probs_dropped.reset();
    s.attn_dropout_mask.reset();
  }
  return context;
}

Tensor GptModel::layer_forward(std::size_t layer, const Tensor& x, LayerSaved& s, bool keep) {
  Backend& b = backend_;
  const LayerParams& p = layer_params_[layer];
  s.x = x;

  // Attention block: LN1 -> f/g -> QKV (column) -> core -> out-proj (row) -> g/ḡ.
  LayerNormResult ln1 = b.layer_norm(x, value(p.ln1_gamma), value(p.ln1_beta), "attn.ln");
  s.ln1_y = std::move(ln1.y);
  s.ln1_stats = std::move(ln1.stats);
  mark(s.ln1_y, keep);
  mark(s.ln1_stats, keep);
  {
    // With SP the gathered [T, h] input is not kept: backward gathers it again.
    const Tensor in = gather_sequence(s.ln1_y, "attn.qkv.all_gather");
    s.qkv = b.matmul(in, value(p.qkv_weight), false, false, "attn.qkv");
  }
  b.add_bias(s.qkv, value(p.qkv_bias), "attn.qkv.bias");
  mark(s.qkv, keep);
  // Selective recomputation drops the attention core's tensors (§2.6).
  s.context = attention_core(s, keep && options_.recompute != Recompute::selective);
  mark(s.context, keep);
  Tensor proj = b.matmul(s.context, value(p.proj_weight), false, false, "attn.proj");
  proj = reduce_output(std::move(proj),
                       sequence_parallel() ? "attn.proj.reduce_scatter" : "attn.proj.all_reduce");
  DropoutResult attn_out = b.bias_dropout_add(proj, value(p.proj_bias), x, shape_.hidden_dropout,
                                              "attn.bias_dropout_add");
  proj.reset();
  s.x1 = std::move(attn_out.y);
  s.attn_residual_mask = std::move(attn_out.mask);
  mark(s.x1, keep);
  mark(s.attn_residual_mask, keep);

  // MLP block: LN2 -> f/g -> FC1 (column) -> GeLU -> FC2 (row) -> g/ḡ.
  LayerNormResult ln2 = b.layer_norm(s.x1, value(p.ln2_gamma), value(p.ln2_beta), "mlp.ln");
  s.ln2_y = std::move(ln2.y);
  s.ln2_stats = std::move(ln2.stats);
  mark(s.ln2_y, keep);
  mark(s.ln2_stats, keep);
  {
    const Tensor in = gather_sequence(s.ln2_y, "mlp.fc1.all_gather");
    s.fc1 = b.matmul(in, value(p.fc1_weight), false, false, "mlp.fc1");
  }
  mark(s.fc1, keep);
  s.gelu = b.bias_gelu(s.fc1, value(p.fc1_bias), "mlp.gelu");
  mark(s.gelu, keep);
  Tensor fc2 = b.matmul(s.gelu, value(p.fc2_weight), false, false, "mlp.fc2");
  fc2 = reduce_output(std::move(fc2),
                      sequence_parallel() ? "mlp.fc2.reduce_scatter" : "mlp.fc2.all_reduce");
  DropoutResult mlp_out = b.bias_dropout_add(fc2, value(p.fc2_bias), s.x1, shape_.hidden_dropout,
                                             "mlp.bias_dropout_add");
  fc2.reset();
  s.mlp_residual_mask = std::move(mlp_out.mask);
  mark(s.mlp_residual_mask, keep);
  b.mark_saved(mlp_out.y);  // the next layer's (or the final LayerNorm's) input
  return std::move(mlp_out.y);
}

void GptModel::backward(ForwardState state, double loss_scale, ParameterHooks* hooks) {
  Backend& b = backend_;
  const std::int32_t none = program::Tag::kNoLayer;
  attach(hooks);
  micro_batch_ = static_cast<std::int32_t>(state.micro_batch_index);
  set_tag(none, Phase::backward);
  state.loss.reset();
  hooks_->before_backward(none);

  b.cross_entropy_backward(state.softmax, state.batch.labels, vocab_begin(), loss_scale,
                           "loss.backward");
  Tensor dlogits = b.cast(state.softmax, shape_.dtype, "loss.backward.cast");
  state.softmax.reset();
  // Output layer (y = x·Wᵀ): dgrad, then f's backward overlapping the wgrad.
  Tensor dfinal = column_backward(dlogits, state.final_ln_y, word_embedding_, true, "output");
  dlogits.reset();
  state.final_ln_y.reset();
  Tensor dx =
      b.layer_norm_backward(dfinal, state.final_x, value(final_gamma_), state.final_ln_stats,
                            grad(final_gamma_), grad(final_beta_), "final.ln.backward");
  ready(final_gamma_);
  ready(final_beta_);
  dfinal.reset();
  state.final_x.reset();
  state.final_ln_stats.reset();

  const bool full = options_.recompute == Recompute::full;
  for (std::size_t l = layer_params_.size(); l-- > 0;) {
    const auto tag = static_cast<std::int32_t>(l);
    set_tag(tag, full ? Phase::recompute : Phase::backward);
    hooks_->before_backward(tag);
    if (full) {
      // Re-run the layer's forward (with its TP collectives) from the kept input.
      LayerSaved fresh;
      const Tensor input = std::move(state.layers[l].x);
      state.layers[l] = LayerSaved{};
      Tensor y = layer_forward(l, input, fresh, true);
      y.reset();
      state.layers[l] = std::move(fresh);
    }
    set_tag(tag, Phase::backward);
    dx = layer_backward(l, std::move(dx), std::move(state.layers[l]));
    hooks_->after_backward(tag);
  }

  set_tag(none, Phase::backward);
  Tensor dembedded = b.dropout_backward(dx, state.embedding_dropout_mask, shape_.hidden_dropout,
                                        nullptr, "embedding.dropout.backward");
  dx.reset();
  state.embedding_dropout_mask.reset();
  b.position_embedding_backward(dembedded, shape_.micro_batch, first_position(),
                                grad(position_embedding_), "embedding.position.backward");
  ready(position_embedding_);
  // With SP, the reduce-scatter's backward: gather the sequence shards.
  const Tensor dword = gather_sequence(dembedded, "embedding.backward.all_gather");
  dembedded.reset();
  b.embedding_backward(dword, state.batch.tokens, vocab_begin(), grad(word_embedding_),
                       "embedding.backward");
  ready(word_embedding_);
  hooks_->after_backward(none);
  hooks_ = nullptr;
}

Tensor GptModel::layer_backward(std::size_t layer, Tensor dy, LayerSaved s) {
  Backend& b = backend_;
  const LayerParams& p = layer_params_[layer];

  // MLP block (§1.3 B1-B7, §2.3). g's backward is the identity; ḡ's is an all-gather.
  Tensor dfc2 = b.dropout_backward(dy, s.mlp_residual_mask, shape_.hidden_dropout,
                                   &grad(p.fc2_bias), "mlp.dropout.backward");
  ready(p.fc2_bias);
  s.mlp_residual_mask.reset();
  dfc2 = gather_sequence(dfc2, "mlp.fc2.dgrad.all_gather");
  Tensor dgelu = b.matmul(dfc2, value(p.fc2_weight), false, true, "mlp.fc2.dgrad");
  b.matmul_accumulate(s.gelu, dfc2, true, false, grad(p.fc2_weight), "mlp.fc2.wgrad");
  ready(p.fc2_weight);
  dfc2.reset();
  s.gelu.reset();
  Tensor dfc1 =
      b.bias_gelu_backward(dgelu, s.fc1, value(p.fc1_bias), grad(p.fc1_bias), "mlp.gelu.backward");
  ready(p.fc1_bias);
  dgelu.reset();
  s.fc1.reset();
  Tensor dln2 = column_backward(dfc1, s.ln2_y, p.fc1_weight, false, "mlp.fc1");
  ready(p.fc1_weight);
  dfc1.reset();
  s.ln2_y.reset();
  Tensor dx1 = b.layer_norm_backward(dln2, s.x1, value(p.ln2_gamma), s.ln2_stats, grad(p.ln2_gamma),
                                     grad(p.ln2_beta), "mlp.ln.backward");
  ready(p.ln2_gamma);
  ready(p.ln2_beta);
  dln2.reset();
  s.x1.reset();
  s.ln2_stats.reset();
  b.accumulate(dx1, dy, "mlp.residual.backward");
  dy.reset();

  // Attention block (§1.3 B7-B16).
  Tensor dproj = b.dropout_backward(dx1, s.attn_residual_mask, shape_.hidden_dropout,
                                    &grad(p.proj_bias), "attn.dropout.backward");
  ready(p.proj_bias);
  s.attn_residual_mask.reset();
  dproj = gather_sequence(dproj, "attn.proj.dgrad.all_gather");
  Tensor dcontext = b.matmul(dproj, value(p.proj_weight), false, true, "attn.proj.dgrad");
  b.matmul_accumulate(s.context, dproj, true, false, grad(p.proj_weight), "attn.proj.wgrad");
  ready(p.proj_weight);
  dproj.reset();
  s.context.reset();
  if (options_.recompute == Recompute::selective) {
    // Re-run the attention core from the kept QKV (no communication, §2.6).
    set_tag(static_cast<std::int32_t>(layer), Phase::recompute);
    Tensor context = attention_core(s, true);
    context.reset();
    set_tag(static_cast<std::int32_t>(layer), Phase::backward);
  }
  Tensor dqkv = b.allocate(s.qkv.shape(), s.qkv.dtype(), MemoryCategory::temporaries, "attn.dqkv");
  Tensor dprobs = b.attention_context_backward(dcontext, s.probs_dropped, s.qkv, dqkv, attention_,
                                               "attn.context.backward");
  dcontext.reset();
  s.probs_dropped.reset();
  Tensor dprobs_pre = b.dropout_backward(dprobs, s.attn_dropout_mask, shape_.attention_dropout,
                                         nullptr, "attn.softmax_dropout.backward");
  dprobs.reset();
  s.attn_dropout_mask.reset();
  Tensor dscores = b.softmax_backward(dprobs_pre, s.probs, "attn.softmax.backward");
  dprobs_pre.reset();
  s.probs.reset();
  b.attention_scores_backward(dscores, s.qkv, dqkv, attention_, "attn.scores.backward");
  dscores.reset();
  s.qkv.reset();
  Tensor dln1 = column_backward(dqkv, s.ln1_y, p.qkv_weight, false, "attn.qkv");
  ready(p.qkv_weight);
  b.bias_grad(dqkv, grad(p.qkv_bias), "attn.qkv.bias.backward");
  ready(p.qkv_bias);
  dqkv.reset();
  s.ln1_y.reset();
  Tensor dx = b.layer_norm_backward(dln1, s.x, value(p.ln1_gamma), s.ln1_stats, grad(p.ln1_gamma),
                                    grad(p.ln1_beta), "attn.ln.backward");
  ready(p.ln1_gamma);
  ready(p.ln1_beta);
  dln1.reset();
  s.x.reset();
  s.ln1_stats.reset();
  b.accumulate(dx, dx1, "attn.residual.backward");
  return dx;
}

}  // namespace trainsim
