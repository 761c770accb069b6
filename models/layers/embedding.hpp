#pragma once
// The input embedding as Megatron runs it: the vocabulary-parallel word embedding (masked
// lookup on this rank's rows, reduced over TP: all-reduce, or with SP a reduce-scatter to the
// sequence shard, §1.4), the learned position embedding and the embedding dropout. 2D: the
// lookup of vocabulary block i x hidden block j reduce-scattered over the column; 3D: of
// chunk j·q + i x hidden block k over the input×weight group.

#include <cstddef>

#include "models/layers/layer_context.hpp"

namespace trainsim {

class Embedding {
 public:
  Embedding() = default;
  /// Registers embedding.word (on a stage with the embedding or the head: the output layer's
  /// tied weight; its gradient bucket is chunk 0's on the first stage, `head_chunk`'s on a
  /// stage with only the head) and embedding.position (with the embedding).
  static Embedding add(LayerContext& c, bool embedding, bool head, std::int32_t head_chunk);

  /// Index of the word embedding in the context's parameters.
  std::size_t word() const { return word_; }

  /// The first layer's input from the micro batch's tokens (freed here in inference, where
  /// only the labels are read again); `dropout_mask` receives the dropout's mask when `keep`.
  Tensor forward(LayerContext& c, TokenBatch& batch, Tensor& dropout_mask, bool keep);
  /// Accumulates the word and position embeddings' gradients from the gradient of the first
  /// layer's input and reports them ready; frees `dx` and `dropout_mask`.
  void backward(LayerContext& c, Tensor dx, Tensor& dropout_mask, const Tensor& tokens);

 private:
  /// Word embedding of the tokens, reduced to this rank's activation block.
  Tensor lookup(LayerContext& c, const Tensor& tokens);

  std::size_t word_ = 0;
  std::size_t position_ = 0;
};

}  // namespace trainsim
