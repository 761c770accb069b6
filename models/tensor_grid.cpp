#include "models/tensor_grid.hpp"

#include <fmt/format.h>

#include "models/tensor_cube.hpp"

namespace trainsim {

GridCell TensorGrid::cell(std::int64_t index) const {
  const std::int64_t q = side_;
  switch (order_) {
    case GridOrder::row_major:  // index = j + q·(i + q·k)
      return {(index / q) % q, index % q, index / (q * q)};
    case GridOrder::column_major:  // index = i + q·(j + q·k)
      return {index % q, (index / q) % q, index / (q * q)};
    case GridOrder::depth_major:  // index = k + d·(j + q·i)
      return {index / (depth_ * q), (index / depth_) % q, index % depth_};
    default:  // the cube orders are rejected for grids
      return {};
  }
}

std::int64_t TensorGrid::index(GridCell c) const {
  const std::int64_t q = side_;
  switch (order_) {
    case GridOrder::row_major:
      return c.column + q * (c.row + q * c.depth);
    case GridOrder::column_major:
      return c.row + q * (c.column + q * c.depth);
    case GridOrder::depth_major:
      return c.depth + depth_ * (c.column + q * c.row);
    default:
      return 0;
  }
}

std::optional<GridProblem> tensor_grid_problem(const ModelSpec& model, const ParallelPlan& plan,
                                               const TrainingSpec& training) {
  const TensorParallel& t = plan.tensor;
  const auto problem = [](std::string field, std::string message) {
    return std::optional<GridProblem>(GridProblem{std::move(field), std::move(message)});
  };
  if (t.kind == TensorKind::one_d) {
    if (t.grid_order != GridOrder::row_major) {
      return problem(
          "parallel.tensor.grid_order",
          fmt::format("grid_order {} places a 2d/2.5d/3d grid; 1d tensor parallelism has "
                      "no grid (leave grid_order out or use row-major)",
                      to_string(t.grid_order)));
    }
    return std::nullopt;
  }
  if (t.kind == TensorKind::three_d) return tensor_cube_problem(model, plan, training);
  const std::string_view kind = to_string(t.kind);
  if (t.grid_order != GridOrder::row_major && t.grid_order != GridOrder::column_major &&
      t.grid_order != GridOrder::depth_major) {
    return problem("parallel.tensor.grid_order",
                   fmt::format("grid_order {} orders a 3d cube; a {} grid is row-major, "
                               "column-major or (2.5d) depth-major",
                               to_string(t.grid_order), kind));
  }
  const bool two_d = t.kind == TensorKind::two_d;
  if (two_d && t.depth != 1) {
    return problem("parallel.tensor.depth",
                   fmt::format("depth {} stacks grids, which only 2.5d does; 2d has depth 1 (use "
                               "kind 2.5d or depth 1)",
                               t.depth));
  }
  if (t.depth < 1 || t.size % t.depth != 0) {
    return problem("parallel.tensor.size",
                   fmt::format("{} tensor parallelism needs size = q² x depth; size {} is not a "
                               "multiple of depth {}",
                               kind, t.size, t.depth));
  }
  const std::int64_t q = t.grid_side();
  if (q * q * t.depth != t.size || q < 2) {
    return problem(
        "parallel.tensor.size",
        two_d ? fmt::format("2d tensor parallelism needs a square size q² with q >= 2 (4, 9, "
                            "16, 25, 36, 49, 64, ...); got {}",
                            t.size)
              : fmt::format("2.5d tensor parallelism needs size = q² x depth with q >= 2; size "
                            "{} / depth {} is not a square of 2 or more (e.g. size {} for q 2)",
                            t.size, t.depth, 4 * t.depth));
  }
  if (!two_d && t.grid_order == GridOrder::depth_major && t.depth < 2) {
    return problem("parallel.tensor.grid_order",
                   fmt::format("depth-major orders the depth axis, which needs depth >= 2 (got "
                               "{}); use row-major or column-major",
                               t.depth));
  }
  if (two_d && t.grid_order == GridOrder::depth_major) {
    return problem("parallel.tensor.grid_order",
                   "depth-major orders the depth axis of 2.5d; a 2d grid is row-major or "
                   "column-major");
  }
  if (t.sequence_parallel) {
    return problem("parallel.tensor.sequence_parallel",
                   fmt::format("sequence parallelism is Megatron's 1d scheme; {} already splits "
                               "every activation over batch and hidden (use false)",
                               kind));
  }
  const std::int64_t batch_split = q * t.depth;
  if (training.micro_batch % batch_split != 0) {
    return problem(
        "training.micro_batch",
        fmt::format("{} splits the micro batch into q{} = {} blocks; micro_batch {} is "
                    "not divisible by {}",
                    kind, two_d ? "" : " x depth", batch_split, training.micro_batch, batch_split));
  }
  if (model.heads % q != 0) {
    return problem("model.heads",
                   fmt::format("{} gives each grid column heads / q heads; heads {} is not "
                               "divisible by q = {}",
                               kind, model.heads, q));
  }
  if (model.hidden % (q * q) != 0) {
    return problem(
        "model.hidden",
        fmt::format("{} splits LayerNorm and bias vectors q² = {} ways; hidden {} is not "
                    "divisible by {}",
                    kind, q * q, model.hidden, q * q));
  }
  if (model.ffn % (q * q) != 0) {
    return problem("model.ffn", fmt::format("{} splits the fc1 bias q² = {} ways; ffn {} is not "
                                            "divisible by {}",
                                            kind, q * q, model.ffn, q * q));
  }
  return std::nullopt;
}

}  // namespace trainsim
