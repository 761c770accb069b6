#pragma once
// What a mixture-of-experts model asks of a parallel plan (modern-models-reference §6.4).

#include <optional>

#include "models/model_spec.hpp"
#include "models/parallel_plan.hpp"
#include "models/tensor_grid.hpp"

namespace trainsim {

/// Why `plan` cannot run `model`'s experts (the field to blame and what is valid), or nothing
/// when it can or the model has none: EP divides the experts and the stage's tensor x context
/// x data ranks, whole experts per GPU, 1D tensor parallelism with sequence parallelism when
/// t > 1 (Megatron-Core's rule: the router and dispatcher work on the sequence shard), ZeRO 0
/// or 1 (the distributed optimizer), the shared experts' width divisible by t.
std::optional<GridProblem> moe_parallel_problem(const ModelSpec& model, const ParallelPlan& plan);

}  // namespace trainsim
