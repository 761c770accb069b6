#include "models/transformer.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "models/errors.hpp"

namespace trainsim {

using program::Phase;

TransformerModel::TransformerModel(Backend& backend, const TransformerShape& shape,
                                   TensorParallelPosition tp, TransformerOptions options)
    : context_(backend, shape, tp, options) {
  backend.set_tag({program::Tag::kNoLayer, 0, 0, Phase::forward});
  // A pipeline stage holds its part (ModelPart): the word embedding on the first and the
  // last stage, the position embedding on the first, the final norm on the last.
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
  embedding_ = Embedding::add(context_, part.embedding, part.head, last_chunk);
  const auto local_layers = static_cast<std::size_t>(count * part.chunks);
  layers_.reserve(local_layers);
  for (std::size_t l = 0; l < local_layers; ++l) {
    const std::size_t begin = context_.parameters().size();
    layers_.emplace_back(context_, layer_tag(l));
    const auto chunk = static_cast<std::int32_t>(static_cast<std::int64_t>(l) / count);
    for (std::size_t i = begin; i < context_.parameters().size(); ++i)
      context_.parameters()[i].chunk = chunk;
  }
  if (part.head) {
    head_ = OutputHead::add(context_,
                            shape.layer.tied_embeddings ? embedding_.word() : std::nullopt,
                            last_chunk);
  }
}

Shape TransformerModel::boundary_shape() const {
  const TensorParallelPosition& tp = context_.tp();
  const std::int64_t tokens = context_.local_seq_len() * context_.local_micro_batch();
  const bool square = tp.cell || tp.cube;
  const std::int64_t hidden = square ? shape().hidden / tp.side() : shape().hidden;
  return {1, context_.sequence_parallel() ? tokens / tp.size : tokens, hidden};
}

bool TransformerModel::duplicate_in_norm(std::size_t index) const {
  const Parameter& p = context_.parameters()[index];
  const TensorParallelPosition& tp = context_.tp();
  if (shares_word_embedding() && options().part.head && index == embedding_.word()) return true;
  if (tp.cube) {
    const CubeCell c = *tp.cube;
    if (p.split == Split::cube_columns) return c.i != 0 || c.j != 0;
    if (p.split == Split::cube_columns_swapped) return c.i != 0 || c.k != 0;
    return false;
  }
  return p.split == Split::replicated && tp.rank != 0;
}

ForwardState TransformerModel::forward(TokenBatch batch, double loss_scale,
                                       std::int64_t micro_batch_index, ParameterHooks* hooks,
                                       Tensor input, std::int64_t chunk) {
  LayerContext& c = context_;
  const std::int32_t none = program::Tag::kNoLayer;
  c.begin_pass(hooks, micro_batch_index, chunk);
  ForwardState state;
  state.micro_batch_index = micro_batch_index;
  state.chunk = chunk;
  c.set_tag(none, Phase::forward);
  c.hooks().before_forward(none);
  // Inference (forward_only) keeps nothing for a backward pass.
  const bool keep = !options().forward_only;
  c.mark(batch.tokens, keep);
  c.mark(batch.labels, keep);

  Tensor x;
  if (!has_embedding(chunk)) {
    // A later pipeline stage: the previous stage's output, kept as the first layer's input.
    x = std::move(input);
    c.mark(x, keep);
  } else {
    x = embedding_.forward(c, batch, state.embedding_dropout_mask, keep);
  }
  const auto begin = static_cast<std::size_t>(chunk * chunk_layers_);
  state.layers.resize(static_cast<std::size_t>(chunk_layers_));
  const bool full = options().recompute == Recompute::full;
  for (std::size_t i = 0; i < state.layers.size(); ++i) {
    TransformerLayer& layer = layers_[begin + i];
    c.set_tag(layer.layer(), Phase::forward);
    c.hooks().before_forward(layer.layer());
    x = layer.forward(c, x, state.layers[i], keep && !full);
    c.hooks().after_forward(layer.layer());
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
    c.set_tag(none, Phase::forward);
    c.hooks().after_forward(none);
    c.end_pass();
    state.output = std::move(x);
    state.batch = std::move(batch);
    return state;
  }
  state.loss = head_.forward(c, std::move(x), batch.labels, loss_scale, keep, state.head);
  if (keep) state.batch = std::move(batch);
  return state;
}

Tensor TransformerModel::backward(ForwardState state, double loss_scale, ParameterHooks* hooks,
                                  Tensor output_grad) {
  LayerContext& c = context_;
  const std::int32_t none = program::Tag::kNoLayer;
  if (options().forward_only) throw std::logic_error("gpt: backward of a forward-only model");
  const std::int64_t chunk = state.chunk;
  c.begin_pass(hooks, state.micro_batch_index, chunk);
  c.set_tag(none, Phase::backward);
  state.loss.reset();
  c.hooks().before_backward(none);

  // The output weight's gradient is final after the head unless the first stage's embedding
  // shares it on this rank.
  const bool final_here = head_.owns_weight() || !options().part.embedding;
  Tensor dx = has_head(chunk)
                  ? head_.backward(c, state.head, state.batch.labels, loss_scale, final_here)
                  : std::move(output_grad);

  const bool full = options().recompute == Recompute::full;
  const auto begin = static_cast<std::size_t>(chunk * chunk_layers_);
  for (std::size_t i = state.layers.size(); i-- > 0;) {
    TransformerLayer& layer = layers_[begin + i];
    const std::int32_t tag = layer.layer();
    c.set_tag(tag, full ? Phase::recompute : Phase::backward);
    c.hooks().before_backward(tag);
    if (full) {
      // Re-run the layer's forward (with its TP collectives) from the kept input.
      LayerSaved fresh;
      const Tensor input = std::move(state.layers[i].x);
      state.layers[i] = LayerSaved{};
      Tensor y = layer.forward(c, input, fresh, true);
      y.reset();
      state.layers[i] = std::move(fresh);
    }
    c.set_tag(tag, Phase::backward);
    dx = layer.backward(c, std::move(dx), std::move(state.layers[i]));
    c.hooks().after_backward(tag);
  }

  c.set_tag(none, Phase::backward);
  if (!has_embedding(chunk)) {
    // A later pipeline stage: the gradient of its input goes to the previous stage.
    c.hooks().after_backward(none);
    c.end_pass();
    return dx;
  }
  embedding_.backward(c, std::move(dx), state.embedding_dropout_mask, state.batch.tokens);
  c.hooks().after_backward(none);
  c.end_pass();
  return {};
}

}  // namespace trainsim
