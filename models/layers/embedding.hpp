#pragma once
// The input embedding as Megatron runs it: the vocabulary-parallel word embedding (masked
// lookup on this rank's rows, reduced over TP: all-reduce, or with SP a reduce-scatter to the
// sequence shard, §1.4), the learned position embedding and the embedding dropout. 2D: the
// lookup of vocabulary block i x hidden block j reduce-scattered over the column; 3D: of
// chunk j·q + i x hidden block k over the input×weight group. With rotary positions (RoPE,
// inside attention) there is no table; trained without dropout, no dropout kernel.

#include <cstddef>
#include <optional>

#include "models/layers/layer_context.hpp"

namespace trainsim {

class Embedding {
 public:
  Embedding() = default;
  /// Registers embedding.word (on a stage with the embedding, or with the head when the output
  /// layer's weight is tied to it; its gradient bucket is chunk 0's on the first stage,
  /// `head_chunk`'s on a stage with only the head) and embedding.position (with the embedding
  /// and learned positions).
  static Embedding add(LayerContext& c, bool embedding, bool head, std::int32_t head_chunk);

  /// Index of the word embedding in the context's parameters (none on a stage without it).
  std::optional<std::size_t> word() const { return word_; }

  /// The first layer's input from the micro batch's tokens (freed here in inference, where
  /// only the labels are read again); `dropout_mask` receives the dropout's mask when `keep`.
  Tensor forward(LayerContext& c, TokenBatch& batch, Tensor& dropout_mask, bool keep);
  /// Accumulates the word and position embeddings' gradients from the gradient of the first
  /// layer's input and reports them ready; frees `dx` and `dropout_mask`.
  void backward(LayerContext& c, Tensor dx, Tensor& dropout_mask, const Tensor& tokens);

 private:
  /// Word embedding of the tokens, reduced to this rank's activation block.
  Tensor lookup(LayerContext& c, const Tensor& tokens);

  std::optional<std::size_t> word_;
  std::optional<std::size_t> position_;
};

}  // namespace trainsim
