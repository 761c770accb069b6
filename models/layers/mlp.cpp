#include "models/layers/mlp.hpp"

#include <stdexcept>

namespace trainsim {

MlpBlock MlpBlock::add(LayerContext& c, const std::string& prefix, std::int32_t layer,
                       bool sequence_parallel, std::optional<std::int64_t> ffn) {
  const TransformerShape& s = c.shape();
  const std::int64_t h = s.hidden;
  const std::int64_t f = ffn.value_or(s.ffn);
  MlpBlock block;
  block.activation_ = s.layer.activation;
  const bool gated = block.activation_ == Activation::swiglu;
  if (!gated && !s.layer.bias) {
    throw std::invalid_argument("mlp: the fused bias-GeLU needs biases (model.bias true)");
  }
  const std::int64_t fc1 = gated ? 2 * f : f;
  const Split fc1_split = gated ? Split::gated_columns : Split::columns;
  // 3D: FC1 reads layer-oriented activations, FC2 FC1's swapped output (cube_ops.hpp).
  block.fc1_weight_ = c.add_parameter(prefix + ".fc1.weight", {1, h, fc1}, fc1_split,
                                      Split::cube_blocks, layer);
  if (s.layer.bias) {
    block.fc1_bias_ = c.add_parameter(prefix + ".fc1.bias", {1, 1, fc1}, fc1_split,
                                      Split::cube_columns_swapped, layer);
  }
  block.fc2_weight_ = c.add_parameter(prefix + ".fc2.weight", {1, f, h}, Split::rows,
                                      Split::cube_blocks_swapped, layer);
  if (s.layer.bias) {
    block.fc2_bias_ = c.add_parameter(prefix + ".fc2.bias", {1, 1, h}, Split::replicated,
                                      Split::cube_columns, layer, sequence_parallel);
  }
  return block;
}

Tensor MlpBlock::forward(LayerContext& c, NormSaved& in, MlpSaved& s, bool keep) {
  Backend& b = c.backend();
  s.fc1 = c.linear(in.y, fc1_weight_, LinearKind::column, "mlp.fc1", &s.fc1_input);
  c.mark(s.fc1, keep);
  c.mark(s.fc1_input, keep);
  if (c.fp8(LinearKind::column)) in.y.reset();  // FC1's backward reads its FP8 copy
  c.consumed({&s.fc1_input});
  c.consumed({&in.y, &in.stats, &in.gamma});
  if (activation_ == Activation::gelu) {
    const Tensor bias = c.vector_value(*fc1_bias_, "mlp.fc1.bias.all_gather");
    s.fc1_bias = c.saved_vector(bias, keep);
    s.activated = b.bias_gelu(s.fc1, bias, "mlp.gelu");
  } else {
    if (fc1_bias_) {
      const Tensor bias = c.vector_value(*fc1_bias_, "mlp.fc1.bias.all_gather");
      b.add_bias(s.fc1, bias, "mlp.fc1.bias");
    }
    s.activated = b.swiglu(s.fc1, "mlp.swiglu");
  }
  c.mark(s.activated, keep);
  c.consumed({&s.fc1, &s.fc1_bias});
  Tensor fc2 = c.linear(s.activated, fc2_weight_, LinearKind::row, "mlp.fc2", &s.fc2_input);
  c.mark(s.fc2_input, keep);
  c.consumed({&s.activated, &s.fc2_input});
  if (c.fp8(LinearKind::row)) s.activated.reset();  // the activation's backward reads FC1's output
  return fc2;
}

Tensor MlpBlock::backward(LayerContext& c, Tensor dfc2, NormSaved& in, MlpSaved& s) {
  Backend& b = c.backend();
  Tensor dactivated = c.linear_backward(dfc2, s.fc2_input, fc2_weight_, LinearKind::row, "mlp.fc2");
  c.ready(fc2_weight_);
  dfc2.reset();
  s.activated.reset();
  s.fc2_input.reset();
  Tensor dfc1;
  if (activation_ == Activation::gelu) {
    Tensor dbias = c.vector_grad(*fc1_bias_, "mlp.fc1.bias.grad");
    dfc1 = b.bias_gelu_backward(dactivated, s.fc1, c.backward_vector(s.fc1_bias, *fc1_bias_),
                                dbias, "mlp.gelu.backward");
    c.vector_grad_done(*fc1_bias_, dbias, "mlp.fc1.bias");
  } else {
    dfc1 = b.swiglu_backward(dactivated, s.fc1, "mlp.swiglu.backward");
    if (fc1_bias_) {
      Tensor dbias = c.vector_grad(*fc1_bias_, "mlp.fc1.bias.grad");
      b.bias_grad(dfc1, dbias, "mlp.fc1.bias.backward");
      c.vector_grad_done(*fc1_bias_, dbias, "mlp.fc1.bias");
    }
  }
  dactivated.reset();
  s.fc1.reset();
  s.fc1_bias.reset();
  Tensor din = c.linear_backward(dfc1, s.fc1_input, fc1_weight_, LinearKind::column, "mlp.fc1");
  c.ready(fc1_weight_);
  dfc1.reset();
  in.y.reset();
  s.fc1_input.reset();
  return din;
}

}  // namespace trainsim
