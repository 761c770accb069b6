#include "models/layers/mlp.hpp"

namespace trainsim {

MlpBlock MlpBlock::add(LayerContext& c, const std::string& prefix, std::int32_t layer,
                       bool sequence_parallel) {
  const std::int64_t h = c.shape().hidden;
  const std::int64_t f = c.shape().ffn;
  // 3D: FC1 reads layer-oriented activations, FC2 FC1's swapped output (cube_ops.hpp).
  MlpBlock block;
  block.fc1_weight_ = c.add_parameter(prefix + ".fc1.weight", {1, h, f}, Split::columns,
                                      Split::cube_blocks, layer);
  block.fc1_bias_ = c.add_parameter(prefix + ".fc1.bias", {1, 1, f}, Split::columns,
                                    Split::cube_columns_swapped, layer);
  block.fc2_weight_ = c.add_parameter(prefix + ".fc2.weight", {1, f, h}, Split::rows,
                                      Split::cube_blocks_swapped, layer);
  block.fc2_bias_ = c.add_parameter(prefix + ".fc2.bias", {1, 1, h}, Split::replicated,
                                    Split::cube_columns, layer, sequence_parallel);
  return block;
}

Tensor MlpBlock::forward(LayerContext& c, NormSaved& in, MlpSaved& s, bool keep) {
  s.fc1 = c.linear(in.y, fc1_weight_, LinearKind::column, "mlp.fc1");
  c.mark(s.fc1, keep);
  c.consumed({&in.y, &in.stats, &in.gamma});
  {
    const Tensor bias = c.vector_value(fc1_bias_, "mlp.fc1.bias.all_gather");
    s.fc1_bias = c.saved_vector(bias, keep);
    s.gelu = c.backend().bias_gelu(s.fc1, bias, "mlp.gelu");
  }
  c.mark(s.gelu, keep);
  c.consumed({&s.fc1, &s.fc1_bias});
  Tensor fc2 = c.linear(s.gelu, fc2_weight_, LinearKind::row, "mlp.fc2");
  c.consumed({&s.gelu});
  return fc2;
}

Tensor MlpBlock::backward(LayerContext& c, Tensor dfc2, NormSaved& in, MlpSaved& s) {
  Tensor dgelu = c.linear_backward(dfc2, s.gelu, fc2_weight_, LinearKind::row, "mlp.fc2");
  c.ready(fc2_weight_);
  dfc2.reset();
  s.gelu.reset();
  Tensor dfc1;
  {
    Tensor dbias = c.vector_grad(fc1_bias_, "mlp.fc1.bias.grad");
    dfc1 = c.backend().bias_gelu_backward(dgelu, s.fc1, c.backward_vector(s.fc1_bias, fc1_bias_),
                                          dbias, "mlp.gelu.backward");
    c.vector_grad_done(fc1_bias_, dbias, "mlp.fc1.bias");
  }
  dgelu.reset();
  s.fc1.reset();
  s.fc1_bias.reset();
  Tensor din = c.linear_backward(dfc1, in.y, fc1_weight_, LinearKind::column, "mlp.fc1");
  c.ready(fc1_weight_);
  dfc1.reset();
  in.y.reset();
  return din;
}

}  // namespace trainsim
