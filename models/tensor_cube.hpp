#pragma once
// The cube of a 3D tensor-parallel block (parallelism-reference §5.1): which cell (i, j, k)
// each of the block's consecutive GPUs holds, following the plan's grid order, and the
// conditions a model must meet to be split on it.

#include <cstdint>
#include <optional>

#include "models/parallel_plan.hpp"
#include "models/tensor_grid.hpp"

namespace trainsim {

/// A device (i, j, k) of the cube. Its groups (ColossalAI's names): the weight group varies
/// i, the input group j, the output group k. At a layer's input, activations hold batch block
/// i, sub-block j of it and hidden block k; weights of the first linear of a pair hold
/// W[in block k, out block j], row sub-block i (models/README.md).
struct CubeCell {
  std::int64_t i = 0;
  std::int64_t j = 0;
  std::int64_t k = 0;
  friend bool operator==(const CubeCell&, const CubeCell&) = default;
};

class TensorCube {
 public:
  /// The cube of a 3D plan (size = q³; the plan is assumed valid).
  explicit TensorCube(const TensorParallel& tensor)
      : side_(tensor.grid_side()), order_(tensor.grid_order) {}

  std::int64_t side() const { return side_; }  ///< q
  std::int64_t size() const { return side_ * side_ * side_; }

  /// The cell of the block's GPU `index` (0 .. size-1).
  CubeCell cell(std::int64_t index) const;
  /// Inverse of cell().
  std::int64_t index(CubeCell c) const;

 private:
  std::int64_t side_;
  GridOrder order_;
};

/// Checks a 3D plan: size q³ with q >= 2, a cube grid order, no sequence parallelism, micro
/// batch divisible by q², heads by q, hidden and ffn by q² (linear weights hold [k/q², n/q]).
/// nullopt for other kinds.
std::optional<GridProblem> tensor_cube_problem(const ModelSpec& model, const ParallelPlan& plan,
                                               const TrainingSpec& training);

}  // namespace trainsim
