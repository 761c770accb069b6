#include "models/layers/norm.hpp"

namespace trainsim {

NormBlock NormBlock::add(LayerContext& c, const std::string& prefix, std::int32_t layer,
                         bool sequence_parallel) {
  const std::int64_t h = c.shape().hidden;
  // 3D: the vectors apply to layer-oriented activations (hidden block k).
  NormBlock block;
  block.kind_ = c.shape().layer.norm;
  block.gamma_ = c.add_parameter(prefix + ".gamma", {1, 1, h}, Split::replicated,
                                 Split::cube_columns, layer, sequence_parallel);
  if (block.kind_ == NormKind::layernorm) {
    block.beta_ = c.add_parameter(prefix + ".beta", {1, 1, h}, Split::replicated,
                                  Split::cube_columns, layer, sequence_parallel);
  }
  return block;
}

LayerNormResult NormBlock::normalise(LayerContext& c, const Tensor& x, bool keep,
                                     NormSaved& saved, const std::string& name) {
  const Tensor gamma = c.vector_value(gamma_, name + ".gamma.all_gather");
  if (kind_ == NormKind::rmsnorm) return c.backend().rms_norm(x, gamma, name);  // 1D only
  saved.gamma = c.saved_vector(gamma, keep);
  const Tensor beta = c.vector_value(beta_, name + ".beta.all_gather");
  const std::int64_t hidden = c.shape().hidden;
  if (GridOps* grid = c.grid()) return grid->layer_norm(x, gamma, beta, hidden, name);
  if (CubeOps* cube = c.cube()) return cube->layer_norm(x, gamma, beta, hidden, name);
  return c.backend().layer_norm(x, gamma, beta, name);
}

NormSaved NormBlock::forward(LayerContext& c, const Tensor& x, bool keep,
                             const std::string& name) {
  NormSaved saved;
  LayerNormResult result = normalise(c, x, keep, saved, name);
  saved.y = std::move(result.y);
  saved.stats = std::move(result.stats);
  c.mark(saved.y, keep);
  c.mark(saved.stats, keep);
  return saved;
}

Tensor NormBlock::backward(LayerContext& c, Tensor dy, Tensor& x, NormSaved& saved,
                           const std::string& name) {
  Tensor dx = gradients(c, dy, x, saved, name);
  saved.gamma.reset();
  dy.reset();
  x.reset();
  saved.stats.reset();
  return dx;
}

Tensor NormBlock::gradients(LayerContext& c, const Tensor& dy, const Tensor& x,
                            const NormSaved& saved, const std::string& name) {
  const Tensor& gamma = c.backward_vector(saved.gamma, gamma_);
  if (kind_ == NormKind::rmsnorm) {
    Tensor dgamma = c.vector_grad(gamma_, name + ".gamma.grad");
    Tensor dx = c.backend().rms_norm_backward(dy, x, gamma, saved.stats, dgamma,
                                              name + ".backward");
    c.vector_grad_done(gamma_, dgamma, name + ".gamma");
    return dx;
  }
  Tensor dgamma = c.vector_grad(gamma_, name + ".gamma.grad");
  Tensor dbeta = c.vector_grad(beta_, name + ".beta.grad");
  const std::int64_t hidden = c.shape().hidden;
  const std::string op = name + ".backward";
  Tensor dx;
  if (GridOps* grid = c.grid()) {
    dx = grid->layer_norm_backward(dy, x, gamma, saved.stats, dgamma, dbeta, hidden, op);
  } else if (CubeOps* cube = c.cube()) {
    dx = cube->layer_norm_backward(dy, x, gamma, saved.stats, dgamma, dbeta, hidden, op);
  } else {
    dx = c.backend().layer_norm_backward(dy, x, gamma, saved.stats, dgamma, dbeta, op);
  }
  c.vector_grad_done(gamma_, dgamma, name + ".gamma");
  c.vector_grad_done(beta_, dbeta, name + ".beta");
  return dx;
}

}  // namespace trainsim
