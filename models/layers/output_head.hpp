#pragma once
// The model's head on the last pipeline stage: the final norm, the logits through the tied
// word embedding or the output layer's own weight (column-parallel over the vocabulary; 2D:
// SUMMA A·Bᵀ, logits of batch block i, vocabulary block j) and Megatron's vocabulary-parallel
// cross entropy in fp32 (_VocabParallelCrossEntropy: max, exp-sum and target all-reduced over
// the vocabulary group).

#include <cstddef>
#include <cstdint>
#include <optional>

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
  /// Registers final.ln.{gamma,beta} and, without a tied `word_embedding`, output.weight
  /// ([V, h], rows over the vocabulary) in the gradient bucket of `chunk`; the logits use the
  /// word embedding when given.
  static OutputHead add(LayerContext& c, std::optional<std::size_t> word_embedding,
                        std::int32_t chunk);

  /// `loss_scale` · Σ token losses of the micro batch from the last layer's output `x`. The
  /// forward pass ends here: the hooks are told the parameters outside the layers are done
  /// once the loss is issued, then (`keep`) what the backward reads is marked saved.
  Tensor forward(LayerContext& c, Tensor x, const Tensor& labels, double loss_scale, bool keep,
                 HeadSaved& saved);
  /// The gradient of the last layer's output; frees `saved` as it goes. `final_here`: the
  /// output weight has no other use on this stage (its own weight, or a pipeline's copy of the
  /// word embedding), so its gradient is final.
  Tensor backward(LayerContext& c, HeadSaved& saved, const Tensor& labels, double loss_scale,
                  bool final_here);

  /// The output layer's own weight (untied).
  bool owns_weight() const { return owns_weight_; }

 private:
  NormBlock norm_;
  std::size_t weight_ = 0;  ///< the word embedding, or output.weight
  bool owns_weight_ = false;
};

}  // namespace trainsim
