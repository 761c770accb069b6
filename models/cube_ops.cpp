#include "models/cube_ops.hpp"

#include <string>

#include "models/split_layer_norm.hpp"

namespace trainsim {

Tensor CubeOps::linear(const Tensor& x, const Tensor& w, CubeSide side, bool transpose_w,
                       std::string_view name) {
  const std::string n(name);
  // X: batch block i, all its sub-blocks, hidden (in) block; W: the whole [k/q, n/q] block.
  const Tensor xs = backend_.all_gather(x, input_group(side), stream_of(input_group(side)),
                                        n + ".input.all_gather");
  const Tensor ws = backend_.all_gather(w, CommGroup::weight, stream_of(CommGroup::weight),
                                        n + ".weight.all_gather");
  Tensor partial = backend_.matmul(xs, ws, false, transpose_w, n);
  // Partial over the in block: summed over the output group, each member keeping one sub-block.
  return backend_.reduce_scatter(partial, output_group(side), stream_of(output_group(side)),
                                 n + ".output.reduce_scatter");
}

Tensor CubeOps::linear_backward(const Tensor& dy, const Tensor& x, const Tensor& w, Tensor& grad,
                                CubeSide side, bool transpose_w, std::string_view name) {
  Backend& b = backend_;
  const std::string n(name);
  const Tensor dys =
      b.all_gather(dy, output_group(side), stream_of(output_group(side)), n + ".dgrad.all_gather");
  // Memory-lean: the gathered weight and input were not kept; they travel while the dgrad
  // GEMM waits for dY.
  const Tensor ws =
      b.all_gather(w, CommGroup::weight, stream_of(CommGroup::weight), n + ".weight.all_gather");
  const Tensor xs =
      b.all_gather(x, input_group(side), stream_of(input_group(side)), n + ".input.all_gather");
  Tensor dxs = b.matmul(dys, ws, false, !transpose_w, n + ".dgrad");
  Tensor dx = b.reduce_scatter(dxs, input_group(side), stream_of(input_group(side)),
                               n + ".dgrad.reduce_scatter");
  dxs.reset();
  // dW (dWᵀ for the tied layer) of the whole block, reduce-scattered to this row sub-block.
  Tensor dws = transpose_w ? b.matmul(dys, xs, true, false, n + ".wgrad")
                           : b.matmul(xs, dys, true, false, n + ".wgrad");
  const Tensor dw = b.reduce_scatter(dws, CommGroup::weight, stream_of(CommGroup::weight),
                                     n + ".wgrad.reduce_scatter");
  dws.reset();
  b.accumulate(grad, dw, n + ".wgrad.accumulate");
  return dx;
}

void CubeOps::reduce_vector_gradient(Tensor& partial, Tensor& grad, CubeSide side,
                                     std::string_view name) {
  backend_.all_reduce({&partial, 1}, batch_group(side), ReduceOp::sum, stream_of(batch_group(side)),
                      name);
  backend_.accumulate(grad, partial, std::string(name) + ".accumulate");
}

LayerNormResult CubeOps::layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                    std::int64_t hidden, std::string_view name) {
  return split_layer_norm(backend_, hidden_group(CubeSide::layer), x, gamma, beta, hidden, name);
}

Tensor CubeOps::layer_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                    const Tensor& stats, Tensor& dgamma, Tensor& dbeta,
                                    std::int64_t hidden, std::string_view name) {
  return split_layer_norm_backward(backend_, hidden_group(CubeSide::layer), dy, x, gamma, stats,
                                   dgamma, dbeta, hidden, name);
}

}  // namespace trainsim
