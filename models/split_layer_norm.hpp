#pragma once
// LayerNorm over a hidden dimension split across a group of devices, written over `Backend`:
// the 2D grid splits it along the row, the 3D cube along its output group
// (parallelism-reference §3.4, §5.4). Mean and variance are summed over the group in two
// passes (ColossalAI stacks Σx and Σx² in one all-reduce; two passes keep fp64 agreement with
// the one-device LayerNorm, §3.4).

#include <cstdint>
#include <string_view>

#include "models/backend.hpp"

namespace trainsim {

/// LayerNorm of rows whose `hidden` columns are split over `group`: mean and variance
/// all-reduced over it on the TP stream.
LayerNormResult split_layer_norm(Backend& backend, CommGroup group, const Tensor& x,
                                 const Tensor& gamma, const Tensor& beta, std::int64_t hidden,
                                 std::string_view name);

/// Its backward: one all-reduce over `group` of the two per-row sums the gradient needs;
/// dgamma and dbeta get this device's partial sums over its rows.
Tensor split_layer_norm_backward(Backend& backend, CommGroup group, const Tensor& dy,
                                 const Tensor& x, const Tensor& gamma, const Tensor& stats,
                                 Tensor& dgamma, Tensor& dbeta, std::int64_t hidden,
                                 std::string_view name);

}  // namespace trainsim
