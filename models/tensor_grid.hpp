#pragma once
// The SUMMA grid of a 2D or 2.5D tensor-parallel block (parallelism-reference §3.1, §4.1):
// which cell (row i, column j, depth k) each of the block's consecutive GPUs holds, following
// the plan's grid order, and the conditions a model must meet to be split on it. The 3D cube
// has its own cell type beside this one (tensor_cube.hpp).

#include <cstdint>
#include <optional>
#include <string>

#include "models/parallel_plan.hpp"

namespace trainsim {

/// A device of the grid: activations hold batch block i (of depth layer k) and hidden block
/// j; weights hold block (i, j), the same on every depth layer.
struct GridCell {
  std::int64_t row = 0;     ///< i
  std::int64_t column = 0;  ///< j
  std::int64_t depth = 0;   ///< k (2.5D; 0 for 2D)
  friend bool operator==(const GridCell&, const GridCell&) = default;
};

class TensorGrid {
 public:
  /// The grid of a 2D/2.5D plan (size = q²·depth; the plan is assumed valid).
  explicit TensorGrid(const TensorParallel& tensor)
      : side_(tensor.grid_side()), depth_(tensor.depth), order_(tensor.grid_order) {}

  std::int64_t side() const { return side_; }    ///< q
  std::int64_t depth() const { return depth_; }  ///< d
  std::int64_t size() const { return side_ * side_ * depth_; }

  /// The cell of the block's GPU `index` (0 .. size-1).
  GridCell cell(std::int64_t index) const;
  /// Inverse of cell().
  std::int64_t index(GridCell c) const;

 private:
  std::int64_t side_;
  std::int64_t depth_;
  GridOrder order_;
};

/// Why the plan's tensor grid cannot run this model and batch, if it cannot.
struct GridProblem {
  std::string field;    ///< scenario key to blame ("parallel.tensor.size", "model.hidden", ...)
  std::string message;  ///< lower-case, with the value and what is valid
};

/// Checks a 2D/2.5D plan (3D: tensor_cube_problem; nothing for 1D): size q²(·d) with q >= 2, micro
/// batch divisible by q·d, heads by q, hidden and ffn by q² (LayerNorm and bias vectors are split
/// q² ways), no sequence parallelism, and a grid order that exists for the kind.
std::optional<GridProblem> tensor_grid_problem(const ModelSpec& model, const ParallelPlan& plan,
                                               const TrainingSpec& training);

}  // namespace trainsim
