#include "models/gpt.hpp"

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

// The shard of a full shape that one TP rank holds.
Shape local_shape(Shape full, Split split, std::int64_t tp) {
  if (split == Split::rows) full.rows /= tp;
  if (split == Split::columns) full.cols /= tp;
  return full;
}

}  // namespace

GptModel::GptModel(Backend& backend, const GptShape& shape, TensorParallelPosition tp)
    : backend_(backend), shape_(shape), tp_(tp) {
  const std::int64_t t = tp.size;
  if (shape.heads % t != 0 || shape.ffn % t != 0 || shape.vocab % t != 0 ||
      shape.hidden % shape.heads != 0) {
    throw Infeasible("gpt: heads (" + std::to_string(shape.heads) + "), ffn (" +
                     std::to_string(shape.ffn) + ") and padded vocabulary (" +
                     std::to_string(shape.vocab) + ") must be divisible by the TP size (" +
                     std::to_string(t) + ") and hidden by heads");
  }
  attention_ = {shape.seq_len, shape.micro_batch, shape.heads / t, shape.hidden / shape.heads};
  backend_.set_tag({program::Tag::kNoLayer, 0, 0, Phase::forward});

  const std::int64_t h = shape.hidden;
  const std::int64_t f = shape.ffn;
  const std::int32_t none = program::Tag::kNoLayer;
  word_embedding_ = add_parameter("embedding.word", {1, shape.vocab, h}, Split::rows, none);
  position_embedding_ =
      add_parameter("embedding.position", {1, shape.seq_len, h}, Split::replicated, none);
  for (std::size_t l = 0; l < static_cast<std::size_t>(shape.layers); ++l) {
    const auto tag = static_cast<std::int32_t>(l);
    LayerParams p{};
    p.ln1_gamma = add_parameter(layer_name(l, "attn.ln.gamma"), {1, 1, h}, Split::replicated, tag);
    p.ln1_beta = add_parameter(layer_name(l, "attn.ln.beta"), {1, 1, h}, Split::replicated, tag);
    p.qkv_weight =
        add_parameter(layer_name(l, "attn.qkv.weight"), {1, h, 3 * h}, Split::columns, tag);
    p.qkv_bias = add_parameter(layer_name(l, "attn.qkv.bias"), {1, 1, 3 * h}, Split::columns, tag);
    p.proj_weight = add_parameter(layer_name(l, "attn.proj.weight"), {1, h, h}, Split::rows, tag);
    p.proj_bias = add_parameter(layer_name(l, "attn.proj.bias"), {1, 1, h}, Split::replicated, tag);
    p.ln2_gamma = add_parameter(layer_name(l, "mlp.ln.gamma"), {1, 1, h}, Split::replicated, tag);
    p.ln2_beta = add_parameter(layer_name(l, "mlp.ln.beta"), {1, 1, h}, Split::replicated, tag);
    p.fc1_weight = add_parameter(layer_name(l, "mlp.fc1.weight"), {1, h, f}, Split::columns, tag);
    p.fc1_bias = add_parameter(layer_name(l, "mlp.fc1.bias"), {1, 1, f}, Split::columns, tag);
    p.fc2_weight = add_parameter(layer_name(l, "mlp.fc2.weight"), {1, f, h}, Split::rows, tag);
    p.fc2_bias = add_parameter(layer_name(l, "mlp.fc2.bias"), {1, 1, h}, Split::replicated, tag);
    layer_params_.push_back(p);
  }
  final_gamma_ = add_parameter("final.ln.gamma", {1, 1, h}, Split::replicated, none);
  final_beta_ = add_parameter("final.ln.beta", {1, 1, h}, Split::replicated, none);
}

std::size_t GptModel::add_parameter(std::string name, Shape full_shape, Split split,
                                    std::int32_t layer) {
  Parameter p;
  const Shape local = local_shape(full_shape, split, tp_.size);
  p.value = backend_.allocate(local, shape_.dtype, MemoryCategory::parameters, name);
  // Megatron with bf16 keeps fp32 main gradients (accumulate_allreduce_grads_in_fp32).
  p.grad = backend_.allocate(local, DType::fp32, MemoryCategory::gradients, name + ".grad");
  p.name = std::move(name);
  p.full_shape = full_shape;
  p.split = split;
  p.layer = layer;
  parameters_.push_back(std::move(p));
  return parameters_.size() - 1;
}

void GptModel::set_tag(std::int32_t layer, Phase phase) {
  backend_.set_tag({layer, micro_batch_, 0, phase});
}

void GptModel::ready(std::size_t index) {
  if (listener_ != nullptr) listener_->grad_ready(index);
}

ForwardState GptModel::forward(TokenBatch batch, double loss_scale,
                               std::int64_t micro_batch_index) {
  Backend& b = backend_;
  const bool tp = tp_.size > 1;
  micro_batch_ = static_cast<std::int32_t>(micro_batch_index);
  ForwardState state;
  state.micro_batch_index = micro_batch_index;
  set_tag(program::Tag::kNoLayer, Phase::forward);
  b.mark_saved(batch.tokens);
  b.mark_saved(batch.labels);

  // Vocabulary-parallel embedding: masked lookup, then g (sum over TP) (§1.4).
  Tensor word =
      b.embedding_lookup(batch.tokens, value(word_embedding_), vocab_begin(), "embedding.lookup");
  if (tp)
    b.all_reduce({&word, 1}, CommGroup::tensor, ReduceOp::sum, Stream::tp, "embedding.all_reduce");
  b.add_position_embedding(word, value(position_embedding_), shape_.micro_batch,
                           "embedding.position");
  DropoutResult embedded = b.dropout(word, shape_.hidden_dropout, "embedding.dropout");
  word.reset();
  b.mark_saved(embedded.y);
  b.mark_saved(embedded.mask);
  state.embedding_dropout_mask = std::move(embedded.mask);

  Tensor x = std::move(embedded.y);
  state.layers.resize(layer_params_.size());
  for (std::size_t l = 0; l < layer_params_.size(); ++l) {
    set_tag(static_cast<std::int32_t>(l), Phase::forward);
    x = layer_forward(l, x, state.layers[l]);
  }

  set_tag(program::Tag::kNoLayer, Phase::forward);
  LayerNormResult final_ln = b.layer_norm(x, value(final_gamma_), value(final_beta_), "final.ln");
  b.mark_saved(final_ln.y);
  b.mark_saved(final_ln.stats);
  // Output layer: f (identity forward), column-parallel over the vocabulary, tied weight.
  Tensor logits = b.matmul(final_ln.y, value(word_embedding_), false, true, "output.logits");
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
  return state;
}

Tensor GptModel::layer_forward(std::size_t layer, const Tensor& x, LayerSaved& s) {
  Backend& b = backend_;
  const LayerParams& p = layer_params_[layer];
  const bool tp = tp_.size > 1;
  s.x = x;

  // Attention block: LN1 -> f -> QKV (column) -> core -> out-proj (row) -> g.
  LayerNormResult ln1 = b.layer_norm(x, value(p.ln1_gamma), value(p.ln1_beta), "attn.ln");
  s.ln1_y = std::move(ln1.y);
  s.ln1_stats = std::move(ln1.stats);
  b.mark_saved(s.ln1_y);
  b.mark_saved(s.ln1_stats);
  s.qkv = b.matmul(s.ln1_y, value(p.qkv_weight), false, false, "attn.qkv");
  b.add_bias(s.qkv, value(p.qkv_bias), "attn.qkv.bias");
  b.mark_saved(s.qkv);
  Tensor scores = b.attention_scores(s.qkv, attention_, "attn.scores");
  s.probs = b.softmax(scores, "attn.softmax");
  scores.reset();
  b.mark_saved(s.probs);
  DropoutResult dropped = b.dropout(s.probs, shape_.attention_dropout, "attn.dropout");
  s.probs_dropped = std::move(dropped.y);
  s.attn_dropout_mask = std::move(dropped.mask);
  b.mark_saved(s.probs_dropped);
  b.mark_saved(s.attn_dropout_mask);
  s.context = b.attention_context(s.probs_dropped, s.qkv, attention_, "attn.context");
  b.mark_saved(s.context);
  Tensor proj = b.matmul(s.context, value(p.proj_weight), false, false, "attn.proj");
  if (tp)
    b.all_reduce({&proj, 1}, CommGroup::tensor, ReduceOp::sum, Stream::tp, "attn.proj.all_reduce");
  DropoutResult attn_out = b.bias_dropout_add(proj, value(p.proj_bias), x, shape_.hidden_dropout,
                                              "attn.bias_dropout_add");
  proj.reset();
  s.x1 = std::move(attn_out.y);
  s.attn_residual_mask = std::move(attn_out.mask);
  b.mark_saved(s.x1);
  b.mark_saved(s.attn_residual_mask);

  // MLP block: LN2 -> f -> FC1 (column) -> GeLU -> FC2 (row) -> g.
  LayerNormResult ln2 = b.layer_norm(s.x1, value(p.ln2_gamma), value(p.ln2_beta), "mlp.ln");
  s.ln2_y = std::move(ln2.y);
  s.ln2_stats = std::move(ln2.stats);
  b.mark_saved(s.ln2_y);
  b.mark_saved(s.ln2_stats);
  s.fc1 = b.matmul(s.ln2_y, value(p.fc1_weight), false, false, "mlp.fc1");
  b.mark_saved(s.fc1);
  s.gelu = b.bias_gelu(s.fc1, value(p.fc1_bias), "mlp.gelu");
  b.mark_saved(s.gelu);
  Tensor fc2 = b.matmul(s.gelu, value(p.fc2_weight), false, false, "mlp.fc2");
  if (tp)
    b.all_reduce({&fc2, 1}, CommGroup::tensor, ReduceOp::sum, Stream::tp, "mlp.fc2.all_reduce");
  DropoutResult mlp_out = b.bias_dropout_add(fc2, value(p.fc2_bias), s.x1, shape_.hidden_dropout,
                                             "mlp.bias_dropout_add");
  fc2.reset();
  s.mlp_residual_mask = std::move(mlp_out.mask);
  b.mark_saved(s.mlp_residual_mask);
  b.mark_saved(mlp_out.y);  // the next layer's (or the final LayerNorm's) input
  return std::move(mlp_out.y);
}

void GptModel::backward(ForwardState state, double loss_scale, GradReadyListener* listener) {
  Backend& b = backend_;
  const bool tp = tp_.size > 1;
  listener_ = listener;
  micro_batch_ = static_cast<std::int32_t>(state.micro_batch_index);
  set_tag(program::Tag::kNoLayer, Phase::backward);
  state.loss.reset();

  b.cross_entropy_backward(state.softmax, state.batch.labels, vocab_begin(), loss_scale,
                           "loss.backward");
  Tensor dlogits = b.cast(state.softmax, shape_.dtype, "loss.backward.cast");
  state.softmax.reset();
  // Output layer: dgrad, then f's backward all-reduce overlapping the wgrad (allreduce_dgrad).
  Tensor dfinal = b.matmul(dlogits, value(word_embedding_), false, false, "output.dgrad");
  if (tp)
    b.all_reduce({&dfinal, 1}, CommGroup::tensor, ReduceOp::sum, Stream::tp,
                 "output.dgrad.all_reduce");
  b.matmul_accumulate(dlogits, state.final_ln_y, true, false, grad(word_embedding_),
                      "output.wgrad");
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

  for (std::size_t l = layer_params_.size(); l-- > 0;) {
    set_tag(static_cast<std::int32_t>(l), Phase::backward);
    dx = layer_backward(l, std::move(dx), std::move(state.layers[l]));
  }

  set_tag(program::Tag::kNoLayer, Phase::backward);
  Tensor dembedded = b.dropout_backward(dx, state.embedding_dropout_mask, shape_.hidden_dropout,
                                        nullptr, "embedding.dropout.backward");
  dx.reset();
  state.embedding_dropout_mask.reset();
  b.position_embedding_backward(dembedded, shape_.micro_batch, grad(position_embedding_),
                                "embedding.position.backward");
  ready(position_embedding_);
  b.embedding_backward(dembedded, state.batch.tokens, vocab_begin(), grad(word_embedding_),
                       "embedding.backward");
  ready(word_embedding_);
  listener_ = nullptr;
}

Tensor GptModel::layer_backward(std::size_t layer, Tensor dy, LayerSaved s) {
  Backend& b = backend_;
  const LayerParams& p = layer_params_[layer];
  const bool tp = tp_.size > 1;

  // MLP block (§1.3 B1-B7). g's backward is the identity.
  Tensor dfc2 = b.dropout_backward(dy, s.mlp_residual_mask, shape_.hidden_dropout,
                                   &grad(p.fc2_bias), "mlp.dropout.backward");
  ready(p.fc2_bias);
  s.mlp_residual_mask.reset();
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
  Tensor dln2 = b.matmul(dfc1, value(p.fc1_weight), false, true, "mlp.fc1.dgrad");
  // f's backward: asynchronous, overlaps the FC1 weight gradient.
  if (tp)
    b.all_reduce({&dln2, 1}, CommGroup::tensor, ReduceOp::sum, Stream::tp,
                 "mlp.fc1.dgrad.all_reduce");
  b.matmul_accumulate(s.ln2_y, dfc1, true, false, grad(p.fc1_weight), "mlp.fc1.wgrad");
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
  Tensor dcontext = b.matmul(dproj, value(p.proj_weight), false, true, "attn.proj.dgrad");
  b.matmul_accumulate(s.context, dproj, true, false, grad(p.proj_weight), "attn.proj.wgrad");
  ready(p.proj_weight);
  dproj.reset();
  s.context.reset();
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
  Tensor dln1 = b.matmul(dqkv, value(p.qkv_weight), false, true, "attn.qkv.dgrad");
  if (tp)
    b.all_reduce({&dln1, 1}, CommGroup::tensor, ReduceOp::sum, Stream::tp,
                 "attn.qkv.dgrad.all_reduce");
  b.matmul_accumulate(s.ln1_y, dqkv, true, false, grad(p.qkv_weight), "attn.qkv.wgrad");
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
