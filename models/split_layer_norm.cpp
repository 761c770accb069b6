#include "models/split_layer_norm.hpp"

#include <string>

namespace trainsim {

LayerNormResult split_layer_norm(Backend& backend, CommGroup group, const Tensor& x,
                                 const Tensor& gamma, const Tensor& beta, std::int64_t hidden,
                                 std::string_view name) {
  const std::string n(name);
  Tensor mean = backend.layer_norm_partial_mean(x, hidden, n + ".mean");
  backend.all_reduce({&mean, 1}, group, ReduceOp::sum, stream_of(group), n + ".mean.all_reduce");
  Tensor var = backend.layer_norm_partial_variance(x, mean, hidden, n + ".variance");
  backend.all_reduce({&var, 1}, group, ReduceOp::sum, stream_of(group), n + ".variance.all_reduce");
  return backend.layer_norm_apply(x, gamma, beta, mean, var, n);
}

Tensor split_layer_norm_backward(Backend& backend, CommGroup group, const Tensor& dy,
                                 const Tensor& x, const Tensor& gamma, const Tensor& stats,
                                 Tensor& dgamma, Tensor& dbeta, std::int64_t hidden,
                                 std::string_view name) {
  const std::string n(name);
  Tensor sums =
      backend.layer_norm_backward_partial(dy, x, gamma, stats, dgamma, dbeta, hidden, n + ".sums");
  backend.all_reduce({&sums, 1}, group, ReduceOp::sum, stream_of(group), n + ".sums.all_reduce");
  return backend.layer_norm_backward_apply(dy, x, gamma, stats, sums, n);
}

}  // namespace trainsim
