#pragma once
// The model's head on the last pipeline stage: the final norm, the logits through the tied
// word embedding (column-parallel over the vocabulary; 2D: SUMMA A·Bᵀ, logits of batch block
// i, vocabulary block j) and Megatron's vocabulary-parallel cross entropy in fp32
// (_VocabParallelCrossEntropy: max, exp-sum and target all-reduced over the vocabulary group).

#include <cstddef>
#include <cstdint>

#include "models/layers/layer_context.hpp"
#include "models/layers/norm.hpp"

namespace trainsim {

/// What the head keeps for its backward pass.
struct HeadSaved {
  Tensor x;  ///< the last layer's output (the final norm's input)
  NormSaved norm;
  Tensor softmax;  ///< fp32 [T, V/t]
};

class OutputHead {
 public:
  OutputHead() = default;
  /// Registers final.ln.{gamma,beta} (gradient bucket of `chunk`); the logits use the word
  /// embedding `word_embedding`.
  static OutputHead add(LayerContext& c, std::size_t word_embedding, std::int32_t chunk);

  /// `loss_scale` · Σ token losses of the micro batch from the last layer's output `x`. The
  /// forward pass ends here: the hooks are told the parameters outside the layers are done
  /// once the loss is issued, then (`keep`) what the backward reads is marked saved.
  Tensor forward(LayerContext& c, Tensor x, const Tensor& labels, double loss_scale, bool keep,
                 HeadSaved& saved);
  /// The gradient of the last layer's output; frees `saved` as it goes. `tied_copy`: this
  /// stage holds a copy of the word embedding used only here, whose gradient is then final.
  Tensor backward(LayerContext& c, HeadSaved& saved, const Tensor& labels, double loss_scale,
                  bool tied_copy);

 private:
  NormBlock norm_;
  std::size_t word_embedding_ = 0;
};

}  // namespace trainsim
