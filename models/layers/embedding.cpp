#include "models/layers/embedding.hpp"

namespace trainsim {

Embedding Embedding::add(LayerContext& c, bool embedding, bool head, std::int32_t head_chunk) {
  const TransformerShape& s = c.shape();
  const std::int32_t none = program::Tag::kNoLayer;
  Embedding block;
  // The tied word embedding is the weight (transposed) of the output linear, whose input is
  // layer-oriented: on a cube its rows (vocabulary) take the swapped row chunks.
  if (embedding || (head && s.layer.tied_embeddings)) {
    block.word_ = c.add_parameter("embedding.word", {1, s.vocab, s.hidden}, Split::rows,
                                  Split::cube_blocks_swapped, none);
    c.parameters().back().chunk = embedding ? 0 : head_chunk;
  }
  if (embedding && s.layer.position == PositionKind::learned) {
    block.position_ = c.add_parameter("embedding.position", {1, s.seq_len, s.hidden},
                                      Split::replicated, Split::cube_columns, none,
                                      c.sequence_parallel());
  }
  return block;
}

Tensor Embedding::lookup(LayerContext& c, const Tensor& tokens) {
  Backend& b = c.backend();
  Tensor word =
      b.embedding_lookup(tokens, c.value(*word_), c.embedding_vocab_begin(), "embedding.lookup");
  if (c.grid()) {
    return b.reduce_scatter(word, CommGroup::column, stream_of(CommGroup::column),
                            "embedding.reduce_scatter");
  }
  // 3D: the q² devices of the input×weight group hold every chunk of hidden block k; the
  // reduce-scatter leaves batch block i, sub-block j (the layer orientation).
  if (c.cube()) {
    return b.reduce_scatter(word, CommGroup::input_weight, stream_of(CommGroup::input_weight),
                            "embedding.reduce_scatter");
  }
  return c.reduce_output(std::move(word), c.sequence_parallel() ? "embedding.reduce_scatter"
                                                                : "embedding.all_reduce");
}

Tensor Embedding::forward(LayerContext& c, TokenBatch& batch, Tensor& dropout_mask, bool keep) {
  Backend& b = c.backend();
  Tensor word = lookup(c, batch.tokens);
  if (!keep) batch.tokens.reset();  // inference: only the labels are read again
  if (position_) {
    const Tensor position = c.vector_value(*position_, "embedding.position.all_gather");
    b.add_position_embedding(word, position, c.local_micro_batch(), c.first_position(),
                             "embedding.position");
  }
  if (!keep) return word;
  if (c.shape().hidden_dropout == 0.0) {
    b.mark_saved(word);  // the first layer's input
    return word;
  }
  DropoutResult embedded = b.dropout(word, c.shape().hidden_dropout, "embedding.dropout");
  word.reset();
  b.mark_saved(embedded.y);
  b.mark_saved(embedded.mask);
  dropout_mask = std::move(embedded.mask);
  return std::move(embedded.y);
}

void Embedding::backward(LayerContext& c, Tensor dx, Tensor& dropout_mask, const Tensor& tokens) {
  Backend& b = c.backend();
  Tensor dembedded = dropout_mask.defined()
                         ? b.dropout_backward(dx, dropout_mask, c.shape().hidden_dropout,
                                              nullptr, "embedding.dropout.backward")
                         : dx;
  dx.reset();
  dropout_mask.reset();
  if (position_) {
    Tensor dposition = c.vector_grad(*position_, "embedding.position.grad");
    b.position_embedding_backward(dembedded, c.local_micro_batch(), c.first_position(),
                                  dposition, "embedding.position.backward");
    c.vector_grad_done(*position_, dposition, "embedding.position");
  }
  // The reduce-scatter's backward (SP, 2D, 3D): gather the shards of the whole micro batch.
  const Tensor dword = [&] {
    if (c.grid() || c.cube()) {
      const CommGroup group = c.grid() ? CommGroup::column : CommGroup::input_weight;
      return b.all_gather(dembedded, group, stream_of(group), "embedding.backward.all_gather");
    }
    return c.gather_sequence(dembedded, "embedding.backward.all_gather");
  }();
  dembedded.reset();
  b.embedding_backward(dword, tokens, c.embedding_vocab_begin(), c.grad(*word_),
                       "embedding.backward");
  c.ready(*word_);
}

}  // namespace trainsim
