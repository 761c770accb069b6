#include "models/tensor_cube.hpp"

#include <fmt/format.h>

#include <string>

namespace trainsim {

CubeCell TensorCube::cell(std::int64_t index) const {
  const std::int64_t q = side_;
  const std::int64_t fast = index % q;
  const std::int64_t middle = (index / q) % q;
  const std::int64_t slow = index / (q * q);
  switch (order_) {
    case GridOrder::input_major:  // index = j + q·(k + q·i)
      return {slow, fast, middle};
    case GridOrder::output_major:  // index = k + q·(i + q·j)
      return {middle, slow, fast};
    default:  // weight-major, ColossalAI: index = i + q·(j + q·k)
      return {fast, middle, slow};
  }
}

std::int64_t TensorCube::index(CubeCell c) const {
  const std::int64_t q = side_;
  switch (order_) {
    case GridOrder::input_major:
      return c.j + q * (c.k + q * c.i);
    case GridOrder::output_major:
      return c.k + q * (c.i + q * c.j);
    default:
      return c.i + q * (c.j + q * c.k);
  }
}

std::optional<GridProblem> tensor_cube_problem(const ModelSpec& model, const ParallelPlan& plan,
                                               const TrainingSpec& training) {
  const TensorParallel& t = plan.tensor;
  if (t.kind != TensorKind::three_d) return std::nullopt;
  const auto problem = [](std::string field, std::string message) {
    return std::optional<GridProblem>(GridProblem{std::move(field), std::move(message)});
  };
  if (t.depth != 1) {
    return problem("parallel.tensor.depth",
                   fmt::format("depth {} stacks grids, which only 2.5d does; 3d has depth 1 (use "
                               "kind 2.5d or depth 1)",
                               t.depth));
  }
  const std::int64_t q = t.grid_side();
  if (q * q * q != t.size || q < 2) {
    return problem("parallel.tensor.size",
                   fmt::format("3d tensor parallelism needs a cube size q³ with q >= 2 (8, 27, "
                               "64, 125, 216, ...); got {}",
                               t.size));
  }
  if (t.grid_order != GridOrder::weight_major && t.grid_order != GridOrder::input_major &&
      t.grid_order != GridOrder::output_major) {
    return problem("parallel.tensor.grid_order",
                   fmt::format("grid_order {} orders a 2d/2.5d grid; a 3d cube is weight-major "
                               "(the default), input-major or output-major",
                               to_string(t.grid_order)));
  }
  if (t.sequence_parallel) {
    return problem("parallel.tensor.sequence_parallel",
                   "sequence parallelism is Megatron's 1d scheme; 3d already splits every "
                   "activation over batch and hidden (use false)");
  }
  if (training.micro_batch % (q * q) != 0) {
    return problem("training.micro_batch",
                   fmt::format("3d splits the micro batch into q² = {} blocks; micro_batch {} "
                               "is not divisible by {}",
                               q * q, training.micro_batch, q * q));
  }
  if (model.heads % q != 0) {
    return problem("model.heads",
                   fmt::format("3d gives each device heads / q heads; heads {} is not divisible "
                               "by q = {}",
                               model.heads, q));
  }
  if (model.hidden % (q * q) != 0) {
    return problem("model.hidden",
                   fmt::format("3d splits the input dimension of the attention and fc1 weights "
                               "q² = {} ways; hidden {} is not divisible by {}",
                               q * q, model.hidden, q * q));
  }
  if (model.ffn % (q * q) != 0) {
    return problem("model.ffn",
                   fmt::format("3d splits the input dimension of the fc2 weight q² = {} ways; "
                               "ffn {} is not divisible by {}",
                               q * q, model.ffn, q * q));
  }
  return std::nullopt;
}

}  // namespace trainsim
