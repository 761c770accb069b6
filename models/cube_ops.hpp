#pragma once
// The operations of 3D tensor parallelism on one device (i, j, k) of a q x q x q cube, written
// over `Backend` (parallelism-reference §5, ColossalAI's parallel_3d): Linear3D (all-gather
// the input over the input group and the weight over the weight group, one GEMM, reduce-scatter
// the output over the output group), its backward, the all-reduce of vector gradients and
// LayerNorm over the group that splits the hidden dimension.
//
// After every Linear3D the input and output groups swap roles (§5.2), so activations come in
// two orientations: `layer` (a layer's input, residual stream and LayerNorms: sub-batch on j,
// hidden on k; ColossalAI's initial groups) and `swapped` (the output of the first linear of
// a pair: QKV, attention core, FC1, GeLU: sub-batch on k, hidden on j).
//
// Memory-lean backward: a Linear3D keeps only its local input shard [T/q², k/q] for backward
// and gathers the input and the weight again there (2 more all-gathers per linear than
// ColossalAI, which saves the gathered [T/q, k/q] input and [k/q, n/q] weight).

#include <cstdint>
#include <string_view>

#include "models/backend.hpp"
#include "models/tensor_cube.hpp"

namespace trainsim {

/// Orientation of an activation on the cube (see the file comment).
enum class CubeSide : std::uint8_t { layer, swapped };

class CubeOps {
 public:
  /// Operations of device `cell` on a cube of edge `side` whose input, weight, output,
  /// input_weight and output_weight communicators are bound on `backend`.
  CubeOps(Backend& backend, CubeCell cell, std::int64_t side)
      : backend_(backend), cell_(cell), side_(side) {}

  CubeCell cell() const { return cell_; }
  std::int64_t side() const { return side_; }

  /// Y = X·W of a Linear3D whose input `x` [T/q², k/q] has orientation `side`; `w` is this
  /// device's [k/q², n/q] shard (`transpose_w`: Y = X·Wᵀ with a [n/q², k/q] shard, the tied
  /// output layer). Returns [T/q², n/q] in the other orientation.
  Tensor linear(const Tensor& x, const Tensor& w, CubeSide side, bool transpose_w,
                std::string_view name);
  /// Its backward from dY (the other orientation): returns dX (orientation `side`) and
  /// accumulates this device's shard of dW into `grad` (fp32, the shape of `w`).
  Tensor linear_backward(const Tensor& dy, const Tensor& x, const Tensor& w, Tensor& grad,
                         CubeSide side, bool transpose_w, std::string_view name);

  /// The group over which the rows (tokens) of an activation of orientation `side` are
  /// split: the gradients of vectors applied to it are summed there (ColossalAI:
  /// input×weight for the layer orientation, output×weight for the swapped one).
  static CommGroup batch_group(CubeSide side) {
    return side == CubeSide::layer ? CommGroup::input_weight : CommGroup::output_weight;
  }
  /// The group over which the hidden dimension of orientation `side` is split (LayerNorm).
  static CommGroup hidden_group(CubeSide side) {
    return side == CubeSide::layer ? CommGroup::output : CommGroup::input;
  }
  /// grad += the sum of `partial` over batch_group(side) (one all-reduce).
  void reduce_vector_gradient(Tensor& partial, Tensor& grad, CubeSide side, std::string_view name);

  /// LayerNorm of a layer-orientation activation (hidden split over the output group).
  LayerNormResult layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                             std::int64_t hidden, std::string_view name);
  /// Its backward; dgamma and dbeta get this device's partial sums (reduce them with
  /// reduce_vector_gradient).
  Tensor layer_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                             const Tensor& stats, Tensor& dgamma, Tensor& dbeta,
                             std::int64_t hidden, std::string_view name);

 private:
  /// Input and output groups of a Linear3D whose input has orientation `side`.
  static CommGroup input_group(CubeSide side) {
    return side == CubeSide::layer ? CommGroup::input : CommGroup::output;
  }
  static CommGroup output_group(CubeSide side) {
    return side == CubeSide::layer ? CommGroup::output : CommGroup::input;
  }

  Backend& backend_;
  CubeCell cell_;
  std::int64_t side_;
};

}  // namespace trainsim
