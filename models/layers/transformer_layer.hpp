#pragma once
// One transformer layer as Megatron-Core's TransformerLayer strings it together: input norm →
// attention → bias-dropout-add → pre-MLP norm → MLP → bias-dropout-add (pre-LN, residuals
// around both blocks). Each slot is its own block (norm.hpp, attention.hpp, mlp.hpp); the
// layer owns the residual path and its dropouts.

#include <cstdint>
#include <optional>

#include "models/layers/attention.hpp"
#include "models/layers/layer_context.hpp"
#include "models/layers/mlp.hpp"
#include "models/layers/moe.hpp"
#include "models/layers/norm.hpp"

namespace trainsim {

/// Tensors one transformer layer keeps for its backward pass (Korthikanti et al. §4.1).
struct LayerSaved {
  Tensor x;  ///< layer input (the attention norm's input); produced and marked by the previous layer
  NormSaved attn_norm;
  AttentionSaved attention;
  Tensor attn_residual_mask;
  Tensor x1;  ///< the residual after attention (the MLP norm's input)
  NormSaved mlp_norm;
  MlpSaved mlp;
  MoeSaved moe;  ///< in place of `mlp` on a MoE layer
  Tensor mlp_residual_mask;
};

class TransformerLayer {
 public:
  /// Registers the layer's parameters as layers.LAYER.attn.* and layers.LAYER.mlp.*, in
  /// Megatron's order (norm, QKV, projection, norm, FC1, FC2); on a MoE layer
  /// layers.LAYER.moe.* in place of the MLP's.
  TransformerLayer(LayerContext& c, std::int32_t layer);

  /// The layer's output from its input `x`; `keep` marks its tensors saved for backward
  /// (false: the forward of a fully recomputed layer, whose tensors die with `saved`).
  Tensor forward(LayerContext& c, const Tensor& x, LayerSaved& saved, bool keep);
  /// The gradient of the layer's input; frees the saved tensors as it goes.
  Tensor backward(LayerContext& c, Tensor dy, LayerSaved saved);

  std::int32_t layer() const { return layer_; }

 private:
  std::int32_t layer_;
  NormBlock attn_norm_;
  AttentionBlock attention_;
  NormBlock mlp_norm_;
  MlpBlock mlp_;
  std::optional<MoeBlock> moe_;  ///< in place of mlp_ on the layers model.moe covers
};

}  // namespace trainsim
