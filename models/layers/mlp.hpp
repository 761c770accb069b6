#pragma once
// The MLP as Megatron's ParallelMLP runs it: FC1 (column-parallel, h → f, with bias), the
// fused bias-GeLU, FC2 (row-parallel, f → h; its bias is applied by the layer's
// bias-dropout-add). With 2D and 3D both linears are the grid's or the cube's products.
// SwiGLU (1D): FC1 is the fused gate and up, h → 2f (each rank [gate block | up block],
// Split::gated_columns), silu(gate)·up, then FC2 f → h; with or without biases.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "models/layers/layer_context.hpp"
#include "models/layers/norm.hpp"

namespace trainsim {

/// What the MLP keeps for its backward pass; its input is the norm's output (NormSaved::y).
struct MlpSaved {
  Tensor fc1;        ///< FC1's output (with its bias)
  Tensor activated;  ///< GeLU or SwiGLU of it: FC2's input
  /// What FC1's and FC2's backward read of their inputs (LayerContext::linear): the norm's
  /// output and `activated`, or with FP8 their FP8 copies.
  Tensor fc1_input, fc2_input;
  Tensor fc1_bias;   ///< the gathered bias block (2D); undefined with 1D and 3D
};

class MlpBlock {
 public:
  MlpBlock() = default;
  /// Registers PREFIX.fc1.{weight,bias} and PREFIX.fc2.{weight,bias} of `layer`; FC2's bias is
  /// partial per TP rank on the sequence shard when `sequence_parallel`. `ffn`: the inner
  /// width when not the model's (a MoE layer's shared experts).
  static MlpBlock add(LayerContext& c, const std::string& prefix, std::int32_t layer,
                      bool sequence_parallel, std::optional<std::int64_t> ffn = std::nullopt);

  /// FC2's output before its bias (reduced over TP) from the norm's output `in`, which it
  /// consumes (inference); `keep` marks what the backward reads saved.
  Tensor forward(LayerContext& c, NormSaved& in, MlpSaved& saved, bool keep);
  /// The gradient of the norm's output from the gradient of FC2's output; frees `saved` and
  /// `in.y` as it goes.
  Tensor backward(LayerContext& c, Tensor dfc2, NormSaved& in, MlpSaved& saved);

  /// FC2's bias, added by the layer's bias-dropout-add (none without biases).
  std::optional<std::size_t> output_bias() const { return fc2_bias_; }

 private:
  Activation activation_ = Activation::gelu;
  std::size_t fc1_weight_ = 0;
  std::optional<std::size_t> fc1_bias_;
  std::size_t fc2_weight_ = 0;
  std::optional<std::size_t> fc2_bias_;
};

}  // namespace trainsim
