#pragma once
// The normalisation in front of a layer's attention and MLP and before the output layer:
// LayerNorm with a gain and a bias over the hidden dimension (Megatron's FusedLayerNorm), on
// this rank's rows (1D, the sequence shard with SP), or over a hidden dimension split across
// the grid's row (2D) or the cube's output group (3D, split_layer_norm.hpp); or RMSNorm with a
// gain only (Llama; 1D).

#include <cstddef>
#include <cstdint>
#include <string>

#include "models/layers/layer_context.hpp"

namespace trainsim {

/// What a norm leaves for its backward pass and for the block it feeds.
struct NormSaved {
  Tensor y;      ///< the output: the next block's input, which that block consumes and frees
  Tensor stats;  ///< fp32 [T, 2]: mean and reciprocal standard deviation (RMSNorm: [T, 1] rstd)
  Tensor gamma;  ///< the gathered gain block (2D); undefined with 1D and 3D
};

class NormBlock {
 public:
  NormBlock() = default;
  /// Registers PREFIX.gamma and, for LayerNorm, PREFIX.beta ([1, h], replicated over 1D TP;
  /// partial per TP rank on the sequence shard when `sequence_parallel`).
  static NormBlock add(LayerContext& c, const std::string& prefix, std::int32_t layer,
                       bool sequence_parallel);

  /// y = LayerNorm(x); ops named NAME, NAME.gamma.all_gather, ... `keep` marks the outputs
  /// saved for the backward pass.
  NormSaved forward(LayerContext& c, const Tensor& x, bool keep, const std::string& name);
  /// dx from dy; accumulates the gain and bias gradients and reports them ready; then frees
  /// the saved gain, dy, x and the statistics, in that order. `saved.y` is the consumer's to
  /// free.
  Tensor backward(LayerContext& c, Tensor dy, Tensor& x, NormSaved& saved,
                  const std::string& name);

 private:
  /// The norm of x; the gathered gain goes to saved.gamma (2D, LayerNorm).
  LayerNormResult normalise(LayerContext& c, const Tensor& x, bool keep, NormSaved& saved,
                            const std::string& name);
  Tensor gradients(LayerContext& c, const Tensor& dy, const Tensor& x, const NormSaved& saved,
                   const std::string& name);

  NormKind kind_ = NormKind::layernorm;
  std::size_t gamma_ = 0;
  std::size_t beta_ = 0;  ///< LayerNorm only
};

}  // namespace trainsim
