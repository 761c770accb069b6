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

// The shard of a full shape that one TP rank holds (`q` the 2D grid side or 3D cube edge).
Shape local_shape(Shape full, Split split, std::int64_t tp, std::int64_t q) {
  switch (split) {
    case Split::replicated:
      return full;
    case Split::rows:
      return {full.batch, full.rows / tp, full.cols};
    case Split::columns:
      return {full.batch, full.rows, full.cols / tp};
    case Split::blocks:
      return {full.batch, full.rows / q, full.cols / q};
    case Split::column_chunks:
      return {1, 1, full.numel() / (q * q)};
    case Split::cube_blocks:
    case Split::cube_blocks_swapped:
      return {full.batch, full.rows / (q * q), full.cols / q};
    case Split::cube_columns:
    case Split::cube_columns_swapped:
      return {full.batch, full.rows, full.cols / q};
  }
  return full;
}

}  // namespace

Split split_for(Split one_d, Shape full, bool grid) {
  const bool one_d_split =
      one_d == Split::replicated || one_d == Split::rows || one_d == Split::columns;
  if (!grid || !one_d_split) return one_d;
  return one_d == Split::replicated || full.rows == 1 ? Split::column_chunks : Split::blocks;
}

GptModel::GptModel(Backend& backend, const GptShape& shape, TensorParallelPosition tp,
                   GptOptions options)
    : backend_(backend), shape_(shape), tp_(tp), options_(options) {
  const std::int64_t t = tp.size;
  const std::int64_t q = tp.side();
  if (tp.cell) grid_.emplace(backend, *tp.cell, q);
  if (tp.cube) cube_.emplace(backend, *tp.cube, q);
  // 1D splits heads, ffn and vocabulary t ways; 2D splits heads and vocabulary q ways,
  // vectors of hidden and ffn q² ways and the micro batch q ways; 3D splits heads q ways,
  // weights' input dimension (hidden, ffn), the vocabulary and the micro batch q² ways.
  const std::int64_t split = tp.cell || tp.cube ? q : t;
  const std::int64_t square_split = tp.cell || tp.cube ? q * q : 1;
  const std::int64_t batch_split = tp.cube ? q * q : q;
  if (shape.heads % split != 0 || shape.ffn % (tp.cell || tp.cube ? q * q : t) != 0 ||
      shape.vocab % (tp.cube ? q * q : split) != 0 || shape.hidden % shape.heads != 0 ||
      shape.hidden % square_split != 0 || shape.micro_batch % batch_split != 0) {
    throw Infeasible("gpt: heads (" + std::to_string(shape.heads) + "), ffn (" +
                     std::to_string(shape.ffn) + "), padded vocabulary (" +
                     std::to_string(shape.vocab) + "), hidden (" + std::to_string(shape.hidden) +
                     ") and micro batch (" + std::to_string(shape.micro_batch) +
                     ") must be divisible as the TP split (size " + std::to_string(t) +
                     ") needs, and hidden by heads");
  }
  if (options.sequence_parallel && (t < 2 || shape.seq_len % t != 0 || tp.cell || tp.cube)) {
    throw Infeasible("gpt: sequence parallelism needs 1D TP > 1 (got " + std::to_string(t) +
                     ") and seq_len (" + std::to_string(shape.seq_len) +
                     ") divisible by the TP size");
  }
  attention_ = {shape.seq_len, shape.micro_batch / batch_split, shape.heads / split,
                shape.hidden / shape.heads};
  backend_.set_tag({program::Tag::kNoLayer, 0, 0, Phase::forward});

  const std::int64_t h = shape.hidden;
  const std::int64_t f = shape.ffn;
  const std::int32_t none = program::Tag::kNoLayer;
  const Split rep = Split::replicated;
  // 3D: vectors on layer-oriented activations (hidden block k) and on swapped ones (block j);
  // weights of linears with layer-oriented and swapped inputs (cube_ops.hpp).
  const Split on_layer = Split::cube_columns;
  const Split on_swapped = Split::cube_columns_swapped;
  const Split from_layer = Split::cube_blocks;
  const Split from_swapped = Split::cube_blocks_swapped;
  // With SP these run on the sequence shard: their gradients are partial per TP rank.
  const bool sp = options.sequence_parallel;
  // The tied word embedding is the weight (transposed) of the output linear, whose input is
  // layer-oriented: its rows (vocabulary) take the swapped row chunks.
  // A pipeline stage holds its part (ModelPart): the word embedding on the first and the
  // last stage, the position embedding on the first, the final LayerNorm on the last.
  const ModelPart& part = options.part;
  const std::int64_t first = part.first_layer;
  const std::int64_t count = part.layers < 0 ? shape.layers - first : part.layers;
  const std::int64_t last = first + (part.chunks - 1) * part.chunk_stride + count;
  if (first < 0 || count < 1 || part.chunks < 1 || last > shape.layers) {
    throw Infeasible("gpt: layers [" + std::to_string(first) + ", " + std::to_string(last) +
                     ") outside the model's " + std::to_string(shape.layers));
  }
  first_layer_ = first;
  chunk_layers_ = count;
  chunk_stride_ = part.chunk_stride;
  const auto last_chunk = static_cast<std::int32_t>(part.chunks - 1);
  if (part.embedding || part.head) {
    word_embedding_ =
        add_parameter("embedding.word", {1, shape.vocab, h}, Split::rows, from_swapped, none);
    parameters_.back().chunk = part.embedding ? 0 : last_chunk;
  }
  if (part.embedding) {
    position_embedding_ =
        add_parameter("embedding.position", {1, shape.seq_len, h}, rep, on_layer, none, sp);
  }
  for (std::size_t l = 0; l < static_cast<std::size_t>(count * part.chunks); ++l) {
    const auto global = static_cast<std::size_t>(layer_tag(l));
    const auto chunk = static_cast<std::int32_t>(static_cast<std::int64_t>(l) / count);
    const auto tag = static_cast<std::int32_t>(global);
    const auto add = [&](const char* name, Shape full, Split one_d, Split cube, bool partial) {
      return add_parameter(layer_name(global, name), full, one_d, cube, tag, partial);
    };
    LayerParams p{};
    p.ln1_gamma = add("attn.ln.gamma", {1, 1, h}, rep, on_layer, sp);
    p.ln1_beta = add("attn.ln.beta", {1, 1, h}, rep, on_layer, sp);
    p.qkv_weight = add("attn.qkv.weight", {1, h, 3 * h}, Split::columns, from_layer, false);
    p.qkv_bias = add("attn.qkv.bias", {1, 1, 3 * h}, Split::columns, on_swapped, false);
    p.proj_weight = add("attn.proj.weight", {1, h, h}, Split::rows, from_swapped, false);
    p.proj_bias = add("attn.proj.bias", {1, 1, h}, rep, on_layer, sp);
    p.ln2_gamma = add("mlp.ln.gamma", {1, 1, h}, rep, on_layer, sp);
    p.ln2_beta = add("mlp.ln.beta", {1, 1, h}, rep, on_layer, sp);
    p.fc1_weight = add("mlp.fc1.weight", {1, h, f}, Split::columns, from_layer, false);
    p.fc1_bias = add("mlp.fc1.bias", {1, 1, f}, Split::columns, on_swapped, false);
    p.fc2_weight = add("mlp.fc2.weight", {1, f, h}, Split::rows, from_swapped, false);
    p.fc2_bias = add("mlp.fc2.bias", {1, 1, h}, rep, on_layer, sp);
    layer_params_.push_back(p);
    for (std::size_t i = p.ln1_gamma; i < parameters_.size(); ++i)
      parameters_[i].chunk = chunk;
  }
  if (part.head) {
    final_gamma_ = add_parameter("final.ln.gamma", {1, 1, h}, rep, on_layer, none, sp);
    final_beta_ = add_parameter("final.ln.beta", {1, 1, h}, rep, on_layer, none, sp);
    parameters_[final_gamma_].chunk = last_chunk;
    parameters_[final_beta_].chunk = last_chunk;
  }
}

std::size_t GptModel::add_parameter(std::string name, Shape full_shape, Split split, Split cube,
                                    std::int32_t layer, bool sequence_parallel) {
  Parameter p;
  split = cube_ ? cube : split_for(split, full_shape, grid_.has_value());
  p.shape = local_shape(full_shape, split, tp_.size, tp_.side());
  if (!options_.shard_parameters) {
    p.value = backend_.allocate(p.shape, shape_.dtype, MemoryCategory::parameters, name);
  }
  // Megatron with bf16 keeps fp32 main gradients (accumulate_allreduce_grads_in_fp32).
  if (!options_.shard_gradients && !options_.forward_only) {
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

bool GptModel::duplicate_in_norm(std::size_t index) const {
  const Parameter& p = parameters_[index];
  if (index == word_embedding_ && options_.part.head && !options_.part.embedding) return true;
  if (tp_.cube) {
    const CubeCell c = *tp_.cube;
    if (p.split == Split::cube_columns) return c.i != 0 || c.j != 0;
    if (p.split == Split::cube_columns_swapped) return c.i != 0 || c.k != 0;
    return false;
  }
  return p.split == Split::replicated && tp_.rank != 0;
}

void GptModel::set_tag(std::int32_t layer, Phase phase) {
  backend_.set_tag({layer, micro_batch_, chunk_, phase});
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
  return backend_.all_gather(x, CommGroup::tensor, stream_of(CommGroup::tensor), name);
}

Tensor GptModel::reduce_output(Tensor partial, const char* name) {
  if (tp_.size == 1) return partial;
  if (sequence_parallel()) {
    return backend_.reduce_scatter(partial, CommGroup::tensor, stream_of(CommGroup::tensor), name);
  }
  backend_.all_reduce({&partial, 1}, CommGroup::tensor, ReduceOp::sum, stream_of(CommGroup::tensor),
                      name);
  return partial;
}

Tensor GptModel::embed_tokens(const Tensor& tokens) {
  Backend& b = backend_;
  // Vocabulary-parallel embedding: masked lookup, then g: all-reduce over TP, or with SP a
  // reduce-scatter to the sequence shard (§1.4). 2D (ColossalAI VocabParallelEmbedding2D):
  // vocabulary block i x hidden block j; the lookup of the whole micro batch is
  // reduce-scattered over the column, leaving batch block i.
  Tensor word = b.embedding_lookup(tokens, value(word_embedding_), embedding_vocab_begin(),
                                   "embedding.lookup");
  if (grid_) {
    return b.reduce_scatter(word, CommGroup::column, stream_of(CommGroup::column),
                            "embedding.reduce_scatter");
  }
  // 3D: vocabulary chunk j·q + i x hidden block k; the q² devices of the input×weight group
  // hold every chunk of hidden block k, and the lookup of the whole micro batch is
  // reduce-scattered over them, leaving batch block i, sub-block j (the layer orientation).
  if (cube_) {
    return b.reduce_scatter(word, CommGroup::input_weight, stream_of(CommGroup::input_weight),
                            "embedding.reduce_scatter");
  }
  return reduce_output(std::move(word),
                       sequence_parallel() ? "embedding.reduce_scatter" : "embedding.all_reduce");
}

Tensor GptModel::linear(const Tensor& x, std::size_t weight, LinearKind kind, const char* name) {
  const std::string n(name);
  if (grid_) {
    return kind == LinearKind::output ? grid_->matmul_bt(x, value(weight), n)
                                      : grid_->matmul(x, value(weight), n);
  }
  if (cube_) {
    return cube_->linear(x, value(weight), cube_input_side(kind), kind == LinearKind::output, n);
  }
  if (kind == LinearKind::row) {
    Tensor partial = backend_.matmul(x, value(weight), false, false, n);
    return reduce_output(std::move(partial),
                         (n + (sequence_parallel() ? ".reduce_scatter" : ".all_reduce")).c_str());
  }
  // With SP the gathered [T, h] input is not kept: backward gathers it again.
  const Tensor in = gather_sequence(x, (n + ".all_gather").c_str());
  return backend_.matmul(in, value(weight), false, kind == LinearKind::output, n);
}

Tensor GptModel::linear_backward(const Tensor& dy, const Tensor& x_saved, std::size_t weight,
                                 LinearKind kind, const char* name) {
  const std::string n(name);
  if (grid_) {
    // Y = X·W: dX = dY·Wᵀ, dW = Xᵀ·dY. Logits Y = X·Eᵀ: dX = dY·E, dE = dYᵀ·X (§3.2).
    if (kind == LinearKind::output) {
      Tensor dx = grid_->matmul(dy, value(weight), n + ".dgrad");
      grid_->matmul_at_accumulate(dy, x_saved, grad(weight), n + ".wgrad");
      return dx;
    }
    Tensor dx = grid_->matmul_bt(dy, value(weight), n + ".dgrad");
    grid_->matmul_at_accumulate(x_saved, dy, grad(weight), n + ".wgrad");
    return dx;
  }
  if (cube_) {
    return cube_->linear_backward(dy, x_saved, value(weight), grad(weight), cube_input_side(kind),
                                  kind == LinearKind::output, n);
  }
  if (kind != LinearKind::row) {
    return column_backward(dy, x_saved, weight, kind == LinearKind::output, name);
  }
  // Row-parallel: g's backward is the identity; ḡ's (SP) is an all-gather.
  const Tensor d = gather_sequence(dy, (n + ".dgrad.all_gather").c_str());
  Tensor dx = backend_.matmul(d, value(weight), false, true, n + ".dgrad");
  backend_.matmul_accumulate(x_saved, d, true, false, grad(weight), n + ".wgrad");
  return dx;
}

LayerNormResult GptModel::norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                               const char* name) {
  if (grid_) return grid_->layer_norm(x, gamma, beta, shape_.hidden, name);
  if (cube_) return cube_->layer_norm(x, gamma, beta, shape_.hidden, name);
  return backend_.layer_norm(x, gamma, beta, name);
}

Tensor GptModel::norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                               const Tensor& stats, std::size_t gamma_index, std::size_t beta_index,
                               const char* name) {
  const std::string n(name);
  Tensor dgamma = vector_grad(gamma_index, n + ".gamma.grad");
  Tensor dbeta = vector_grad(beta_index, n + ".beta.grad");
  Tensor dx;
  if (grid_) {
    dx = grid_->layer_norm_backward(dy, x, gamma, stats, dgamma, dbeta, shape_.hidden,
                                    n + ".backward");
  } else if (cube_) {
    dx = cube_->layer_norm_backward(dy, x, gamma, stats, dgamma, dbeta, shape_.hidden,
                                    n + ".backward");
  } else {
    dx = backend_.layer_norm_backward(dy, x, gamma, stats, dgamma, dbeta, n + ".backward");
  }
  vector_grad_done(gamma_index, dgamma, n + ".gamma");
  vector_grad_done(beta_index, dbeta, n + ".beta");
  return dx;
}

namespace {
// The column block a 2D rank gathers of a vector parameter of full shape `full`.
Shape gathered_shape(Shape full, std::int64_t q) {
  return {1, full.batch * full.rows, full.cols / q};
}
}  // namespace

Tensor GptModel::vector_value(std::size_t index, const std::string& name) {
  if (!grid_) return value(index);  // 1D, and 3D's [n/q] block (replicated over q² devices)
  return grid_->gather_vector(value(index),
                              gathered_shape(parameters_[index].full_shape, grid_->side()), name);
}

Tensor GptModel::vector_grad(std::size_t index, const std::string& name) {
  // 3D: a partial over this device's rows, summed over the cube before it joins the main
  // gradient (ColossalAI all-reduces vector gradients in every backward pass).
  if (cube_) {
    return backend_.allocate(parameters_[index].shape, DType::fp32, MemoryCategory::temporaries,
                             name);
  }
  if (!grid_) return grad(index);
  return backend_.allocate(gathered_shape(parameters_[index].full_shape, grid_->side()),
                           DType::fp32, MemoryCategory::temporaries, name);
}

void GptModel::vector_grad_done(std::size_t index, Tensor& partial, const std::string& name) {
  if (grid_) grid_->scatter_gradient(partial, grad(index), name + ".reduce_scatter");
  if (cube_) {
    const CubeSide side = parameters_[index].split == Split::cube_columns_swapped
                              ? CubeSide::swapped
                              : CubeSide::layer;
    cube_->reduce_vector_gradient(partial, grad(index), side, name + ".all_reduce");
  }
  ready(index);
}

Tensor GptModel::column_backward(const Tensor& dy, const Tensor& x_saved, std::size_t weight,
                                 bool transpose_w, const char* name) {
  Backend& b = backend_;
  const std::string n(name);
  // Megatron's LinearWithGradAccumulationAndAsyncCommunication: the input was saved
  // sequence-sharded; its all-gather runs on the TP stream while the dgrad GEMM computes.
  Tensor x = sequence_parallel()
                 ? b.all_gather(x_saved, CommGroup::tensor, stream_of(CommGroup::tensor),
                                n + ".input.all_gather")
                 : x_saved;
  Tensor dx = b.matmul(dy, value(weight), false, !transpose_w, n + ".dgrad");
  // f's backward (all-reduce) or g's (reduce-scatter), overlapped with the wgrad GEMM.
  if (sequence_parallel()) {
    dx = b.reduce_scatter(dx, CommGroup::tensor, stream_of(CommGroup::tensor),
                          n + ".dgrad.reduce_scatter");
  } else if (tp_.size > 1) {
    b.all_reduce({&dx, 1}, CommGroup::tensor, ReduceOp::sum, stream_of(CommGroup::tensor),
                 n + ".dgrad.all_reduce");
  }
  if (transpose_w) {
    b.matmul_accumulate(dy, x, true, false, grad(weight), n + ".wgrad");
  } else {
    b.matmul_accumulate(x, dy, true, false, grad(weight), n + ".wgrad");
  }
  return dx;
}

ForwardState GptModel::forward(TokenBatch batch, double loss_scale, std::int64_t micro_batch_index,
                               ParameterHooks* hooks, Tensor input, std::int64_t chunk) {
  const std::int32_t none = program::Tag::kNoLayer;
  attach(hooks);
  micro_batch_ = static_cast<std::int32_t>(micro_batch_index);
  chunk_ = static_cast<std::int16_t>(chunk);
  ForwardState state;
  state.micro_batch_index = micro_batch_index;
  state.chunk = chunk;
  set_tag(none, Phase::forward);
  hooks_->before_forward(none);
  // Inference (forward_only) keeps nothing for a backward pass.
  const bool keep = !options_.forward_only;
  mark(batch.tokens, keep);
  mark(batch.labels, keep);

  Tensor x;
  if (!has_embedding(chunk)) {
    // A later pipeline stage: the previous stage's output, kept as the first layer's input.
    x = std::move(input);
    mark(x, keep);
  } else {
    x = embed(batch, state, keep);
  }
  const auto begin = static_cast<std::size_t>(chunk * chunk_layers_);
  state.layers.resize(static_cast<std::size_t>(chunk_layers_));
  const bool full = options_.recompute == Recompute::full;
  for (std::size_t i = 0; i < state.layers.size(); ++i) {
    const std::size_t l = begin + i;
    const auto tag = layer_tag(l);
    set_tag(tag, Phase::forward);
    hooks_->before_forward(tag);
    x = layer_forward(l, x, state.layers[i], keep && !full);
    hooks_->after_forward(tag);
    if (!keep) {
      state.layers[i] = LayerSaved{};
    } else if (full) {
      // Full recomputation keeps only the layer input (Megatron's checkpointed layer).
      Tensor in = std::move(state.layers[i].x);
      state.layers[i] = LayerSaved{};
      state.layers[i].x = std::move(in);
    }
  }
  if (!has_head(chunk)) {
    // A pipeline stage before the last: its output goes to the next stage.
    set_tag(none, Phase::forward);
    hooks_->after_forward(none);
    hooks_ = nullptr;
    state.output = std::move(x);
    state.batch = std::move(batch);
    return state;
  }
  return forward_head(std::move(batch), std::move(x), std::move(state), loss_scale, keep);
}

Tensor GptModel::embed(TokenBatch& batch, ForwardState& state, bool keep) {
  Backend& b = backend_;
  Tensor word = embed_tokens(batch.tokens);
  if (!keep) batch.tokens.reset();  // inference: only the labels are read again
  {
    const Tensor position = vector_value(position_embedding_, "embedding.position.all_gather");
    b.add_position_embedding(word, position, local_micro_batch(), first_position(),
                             "embedding.position");
  }
  Tensor x;
  if (keep) {
    DropoutResult embedded = b.dropout(word, shape_.hidden_dropout, "embedding.dropout");
    word.reset();
    b.mark_saved(embedded.y);
    b.mark_saved(embedded.mask);
    state.embedding_dropout_mask = std::move(embedded.mask);
    x = std::move(embedded.y);
  } else {
    x = std::move(word);
  }
  return x;
}

ForwardState GptModel::forward_head(TokenBatch batch, Tensor x, ForwardState state,
                                    double loss_scale, bool keep) {
  Backend& b = backend_;
  const bool tp = vocab_split();
  const std::int32_t none = program::Tag::kNoLayer;
  set_tag(none, Phase::forward);
  LayerNormResult final_ln = [&] {
    const Tensor gamma = vector_value(final_gamma_, "final.ln.gamma.all_gather");
    state.final_gamma = saved_vector(gamma, keep);
    const Tensor beta = vector_value(final_beta_, "final.ln.beta.all_gather");
    return norm(x, gamma, beta, "final.ln");
  }();
  mark(final_ln.y, keep);
  mark(final_ln.stats, keep);
  // Output layer: f (identity forward; with SP an all-gather), column-parallel over the
  // vocabulary, tied weight; 2D: SUMMA A·Bᵀ, logits of batch block i, vocabulary block j.
  Tensor logits = linear(final_ln.y, word_embedding_, LinearKind::output, "output.logits");
  if (!keep) {
    // Inference: the final LayerNorm's input and output are consumed.
    x.reset();
    final_ln = {};
    state.final_gamma.reset();
  }
  // Megatron computes the cross entropy in fp32 (fp16_lm_cross_entropy off).
  Tensor logits32 = b.cast(logits, DType::fp32, "loss.cast");
  logits.reset();
  Tensor max = b.row_max(logits32, "loss.max");
  if (tp)
    b.all_reduce({&max, 1}, vocab_group(), ReduceOp::max, stream_of(vocab_group()),
                 "loss.max.all_reduce");
  CrossEntropyStats stats =
      b.cross_entropy_stats(logits32, max, batch.labels, vocab_begin(), "loss.exp_sum");
  max.reset();
  if (tp) {
    b.all_reduce({&stats.target_logit, 1}, vocab_group(), ReduceOp::sum, stream_of(vocab_group()),
                 "loss.target.all_reduce");
    b.all_reduce({&stats.sum_exp, 1}, vocab_group(), ReduceOp::sum, stream_of(vocab_group()),
                 "loss.sum_exp.all_reduce");
  }
  state.loss = b.cross_entropy_loss(logits32, stats, loss_scale, "loss.softmax");
  hooks_->after_forward(none);
  hooks_ = nullptr;
  if (!keep) return state;
  b.mark_saved(logits32);
  state.softmax = std::move(logits32);
  state.final_x = std::move(x);
  state.final_ln_y = std::move(final_ln.y);
  state.final_ln_stats = std::move(final_ln.stats);
  state.batch = std::move(batch);
  return state;
}

Tensor GptModel::attention_core(LayerSaved& s, bool keep) {
  Backend& b = backend_;
  Tensor scores = b.attention_scores(s.qkv, attention_, "attn.scores");
  s.probs = b.softmax(scores, "attn.softmax");
  scores.reset();
  mark(s.probs, keep);
  if (options_.forward_only) {
    s.probs_dropped = s.probs;  // eval mode: no attention dropout
  } else {
    DropoutResult dropped = b.dropout(s.probs, shape_.attention_dropout, "attn.dropout");
    s.probs_dropped = std::move(dropped.y);
    s.attn_dropout_mask = std::move(dropped.mask);
  }
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
  // Eval mode: the fused bias-dropout-add kernels drop nothing.
  const double dropout = options_.forward_only ? 0.0 : shape_.hidden_dropout;
  s.x = x;

  // Attention block: LN1 -> f/g -> QKV (column) -> core -> out-proj (row) -> g/ḡ. With 2D
  // every linear is a SUMMA product and the core holds heads block j of batch block i.
  LayerNormResult ln1 = [&] {
    const Tensor gamma = vector_value(p.ln1_gamma, "attn.ln.gamma.all_gather");
    s.ln1_gamma = saved_vector(gamma, keep);
    const Tensor beta = vector_value(p.ln1_beta, "attn.ln.beta.all_gather");
    return norm(x, gamma, beta, "attn.ln");
  }();
  s.ln1_y = std::move(ln1.y);
  s.ln1_stats = std::move(ln1.stats);
  mark(s.ln1_y, keep);
  mark(s.ln1_stats, keep);
  s.qkv = linear(s.ln1_y, p.qkv_weight, LinearKind::column, "attn.qkv");
  consumed({&s.ln1_y, &s.ln1_stats, &s.ln1_gamma});
  {
    const Tensor bias = vector_value(p.qkv_bias, "attn.qkv.bias.all_gather");
    b.add_bias(s.qkv, bias, "attn.qkv.bias");
  }
  mark(s.qkv, keep);
  // Selective recomputation drops the attention core's tensors (§2.6).
  s.context = attention_core(s, keep && options_.recompute != Recompute::selective);
  mark(s.context, keep);
  consumed({&s.qkv});
  Tensor proj = linear(s.context, p.proj_weight, LinearKind::row, "attn.proj");
  consumed({&s.context});
  DropoutResult attn_out = [&] {
    const Tensor bias = vector_value(p.proj_bias, "attn.proj.bias.all_gather");
    return b.bias_dropout_add(proj, bias, x, dropout, "attn.bias_dropout_add");
  }();
  proj.reset();
  s.x1 = std::move(attn_out.y);
  s.attn_residual_mask = std::move(attn_out.mask);
  mark(s.x1, keep);
  mark(s.attn_residual_mask, keep);
  consumed({&s.x, &s.attn_residual_mask});

  // MLP block: LN2 -> f/g -> FC1 (column) -> GeLU -> FC2 (row) -> g/ḡ.
  LayerNormResult ln2 = [&] {
    const Tensor gamma = vector_value(p.ln2_gamma, "mlp.ln.gamma.all_gather");
    s.ln2_gamma = saved_vector(gamma, keep);
    const Tensor beta = vector_value(p.ln2_beta, "mlp.ln.beta.all_gather");
    return norm(s.x1, gamma, beta, "mlp.ln");
  }();
  s.ln2_y = std::move(ln2.y);
  s.ln2_stats = std::move(ln2.stats);
  mark(s.ln2_y, keep);
  mark(s.ln2_stats, keep);
  s.fc1 = linear(s.ln2_y, p.fc1_weight, LinearKind::column, "mlp.fc1");
  mark(s.fc1, keep);
  consumed({&s.ln2_y, &s.ln2_stats, &s.ln2_gamma});
  {
    const Tensor bias = vector_value(p.fc1_bias, "mlp.fc1.bias.all_gather");
    s.fc1_bias = saved_vector(bias, keep);
    s.gelu = b.bias_gelu(s.fc1, bias, "mlp.gelu");
  }
  mark(s.gelu, keep);
  consumed({&s.fc1, &s.fc1_bias});
  Tensor fc2 = linear(s.gelu, p.fc2_weight, LinearKind::row, "mlp.fc2");
  consumed({&s.gelu});
  DropoutResult mlp_out = [&] {
    const Tensor bias = vector_value(p.fc2_bias, "mlp.fc2.bias.all_gather");
    return b.bias_dropout_add(fc2, bias, s.x1, dropout, "mlp.bias_dropout_add");
  }();
  fc2.reset();
  s.mlp_residual_mask = std::move(mlp_out.mask);
  mark(s.mlp_residual_mask, keep);
  consumed({&s.x1, &s.mlp_residual_mask});
  // The next layer's (or the final LayerNorm's) input, kept also by full recomputation.
  mark(mlp_out.y, !options_.forward_only);
  return std::move(mlp_out.y);
}

Tensor GptModel::backward(ForwardState state, double loss_scale, ParameterHooks* hooks,
                          Tensor output_grad) {
  const std::int32_t none = program::Tag::kNoLayer;
  if (options_.forward_only) throw std::logic_error("gpt: backward of a forward-only model");
  attach(hooks);
  micro_batch_ = static_cast<std::int32_t>(state.micro_batch_index);
  const std::int64_t chunk = state.chunk;
  chunk_ = static_cast<std::int16_t>(chunk);
  set_tag(none, Phase::backward);
  state.loss.reset();
  hooks_->before_backward(none);

  Tensor dx = has_head(chunk) ? backward_head(state, loss_scale) : std::move(output_grad);

  const bool full = options_.recompute == Recompute::full;
  const auto begin = static_cast<std::size_t>(chunk * chunk_layers_);
  for (std::size_t i = state.layers.size(); i-- > 0;) {
    const std::size_t l = begin + i;
    const auto tag = layer_tag(l);
    set_tag(tag, full ? Phase::recompute : Phase::backward);
    hooks_->before_backward(tag);
    if (full) {
      // Re-run the layer's forward (with its TP collectives) from the kept input.
      LayerSaved fresh;
      const Tensor input = std::move(state.layers[i].x);
      state.layers[i] = LayerSaved{};
      Tensor y = layer_forward(l, input, fresh, true);
      y.reset();
      state.layers[i] = std::move(fresh);
    }
    set_tag(tag, Phase::backward);
    dx = layer_backward(l, std::move(dx), std::move(state.layers[i]));
    hooks_->after_backward(tag);
  }

  set_tag(none, Phase::backward);
  if (!has_embedding(chunk)) {
    // A later pipeline stage: the gradient of its input goes to the previous stage.
    hooks_->after_backward(none);
    hooks_ = nullptr;
    return dx;
  }
  backward_embedding(state, std::move(dx));
  hooks_->after_backward(none);
  hooks_ = nullptr;
  return {};
}

Tensor GptModel::backward_head(ForwardState& state, double loss_scale) {
  Backend& b = backend_;
  b.cross_entropy_backward(state.softmax, state.batch.labels, vocab_begin(), loss_scale,
                           "loss.backward");
  Tensor dlogits = b.cast(state.softmax, shape_.dtype, "loss.backward.cast");
  state.softmax.reset();
  // Output layer (y = x·Wᵀ): dgrad, then f's backward overlapping the wgrad.
  Tensor dfinal =
      linear_backward(dlogits, state.final_ln_y, word_embedding_, LinearKind::output, "output");
  dlogits.reset();
  state.final_ln_y.reset();
  // The last stage's copy of the word embedding has no other use: its gradient is final.
  if (!options_.part.embedding) ready(word_embedding_);  // (the head's chunk)
  Tensor dx = norm_backward(dfinal, state.final_x, backward_vector(state.final_gamma, final_gamma_),
                            state.final_ln_stats, final_gamma_, final_beta_, "final.ln");
  state.final_gamma.reset();
  dfinal.reset();
  state.final_x.reset();
  state.final_ln_stats.reset();
  return dx;
}

void GptModel::backward_embedding(ForwardState& state, Tensor dx) {
  Backend& b = backend_;
  Tensor dembedded = b.dropout_backward(dx, state.embedding_dropout_mask, shape_.hidden_dropout,
                                        nullptr, "embedding.dropout.backward");
  dx.reset();
  state.embedding_dropout_mask.reset();
  {
    Tensor dposition = vector_grad(position_embedding_, "embedding.position.grad");
    b.position_embedding_backward(dembedded, local_micro_batch(), first_position(), dposition,
                                  "embedding.position.backward");
    vector_grad_done(position_embedding_, dposition, "embedding.position");
  }
  // The reduce-scatter's backward (SP, 2D, 3D): gather the shards of the whole micro batch.
  const Tensor dword = [&] {
    if (grid_ || cube_) {
      const CommGroup group = grid_ ? CommGroup::column : CommGroup::input_weight;
      return b.all_gather(dembedded, group, stream_of(group), "embedding.backward.all_gather");
    }
    return gather_sequence(dembedded, "embedding.backward.all_gather");
  }();
  dembedded.reset();
  b.embedding_backward(dword, state.batch.tokens, embedding_vocab_begin(), grad(word_embedding_),
                       "embedding.backward");
  ready(word_embedding_);
}

Tensor GptModel::layer_backward(std::size_t layer, Tensor dy, LayerSaved s) {
  Backend& b = backend_;
  const LayerParams& p = layer_params_[layer];

  // MLP block (§1.3 B1-B7, §2.3). g's backward is the identity; ḡ's is an all-gather.
  Tensor dfc2;
  {
    Tensor dbias = vector_grad(p.fc2_bias, "mlp.fc2.bias.grad");
    dfc2 = b.dropout_backward(dy, s.mlp_residual_mask, shape_.hidden_dropout, &dbias,
                              "mlp.dropout.backward");
    vector_grad_done(p.fc2_bias, dbias, "mlp.fc2.bias");
  }
  s.mlp_residual_mask.reset();
  Tensor dgelu = linear_backward(dfc2, s.gelu, p.fc2_weight, LinearKind::row, "mlp.fc2");
  ready(p.fc2_weight);
  dfc2.reset();
  s.gelu.reset();
  Tensor dfc1;
  {
    Tensor dbias = vector_grad(p.fc1_bias, "mlp.fc1.bias.grad");
    dfc1 = b.bias_gelu_backward(dgelu, s.fc1, backward_vector(s.fc1_bias, p.fc1_bias), dbias,
                                "mlp.gelu.backward");
    vector_grad_done(p.fc1_bias, dbias, "mlp.fc1.bias");
  }
  dgelu.reset();
  s.fc1.reset();
  s.fc1_bias.reset();
  Tensor dln2 = linear_backward(dfc1, s.ln2_y, p.fc1_weight, LinearKind::column, "mlp.fc1");
  ready(p.fc1_weight);
  dfc1.reset();
  s.ln2_y.reset();
  Tensor dx1 = norm_backward(dln2, s.x1, backward_vector(s.ln2_gamma, p.ln2_gamma), s.ln2_stats,
                             p.ln2_gamma, p.ln2_beta, "mlp.ln");
  s.ln2_gamma.reset();
  dln2.reset();
  s.x1.reset();
  s.ln2_stats.reset();
  b.accumulate(dx1, dy, "mlp.residual.backward");
  dy.reset();

  // Attention block (§1.3 B7-B16).
  Tensor dproj;
  {
    Tensor dbias = vector_grad(p.proj_bias, "attn.proj.bias.grad");
    dproj = b.dropout_backward(dx1, s.attn_residual_mask, shape_.hidden_dropout, &dbias,
                               "attn.dropout.backward");
    vector_grad_done(p.proj_bias, dbias, "attn.proj.bias");
  }
  s.attn_residual_mask.reset();
  Tensor dcontext = linear_backward(dproj, s.context, p.proj_weight, LinearKind::row, "attn.proj");
  ready(p.proj_weight);
  dproj.reset();
  s.context.reset();
  if (options_.recompute == Recompute::selective) {
    // Re-run the attention core from the kept QKV (no communication, §2.6).
    set_tag(layer_tag(layer), Phase::recompute);
    Tensor context = attention_core(s, true);
    context.reset();
    set_tag(layer_tag(layer), Phase::backward);
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
  Tensor dln1 = linear_backward(dqkv, s.ln1_y, p.qkv_weight, LinearKind::column, "attn.qkv");
  ready(p.qkv_weight);
  {
    Tensor dbias = vector_grad(p.qkv_bias, "attn.qkv.bias.grad");
    b.bias_grad(dqkv, dbias, "attn.qkv.bias.backward");
    vector_grad_done(p.qkv_bias, dbias, "attn.qkv.bias");
  }
  dqkv.reset();
  s.ln1_y.reset();
  Tensor dx = norm_backward(dln1, s.x, backward_vector(s.ln1_gamma, p.ln1_gamma), s.ln1_stats,
                            p.ln1_gamma, p.ln1_beta, "attn.ln");
  s.ln1_gamma.reset();
  dln1.reset();
  s.x.reset();
  s.ln1_stats.reset();
  b.accumulate(dx, dx1, "attn.residual.backward");
  return dx;
}

}  // namespace trainsim
