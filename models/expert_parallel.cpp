#include "models/expert_parallel.hpp"

#include <fmt/format.h>

namespace trainsim {

std::optional<GridProblem> moe_parallel_problem(const ModelSpec& model, const ParallelPlan& plan) {
  const std::int64_t e = plan.expert.size;
  if (!model.moe) {
    if (e == 1) return std::nullopt;
    return GridProblem{"parallel.expert.size",
                       fmt::format("{} expert-parallel ranks, but the model has no experts; set "
                                   "model.moe.experts, or expert.size 1",
                                   e)};
  }
  const MoeSpec& moe = *model.moe;
  const std::int64_t stage = plan.tensor.size * plan.context.size * plan.data.size;
  if (moe.experts % e != 0) {
    return GridProblem{"parallel.expert.size",
                       fmt::format("expert.size {} does not divide the {} experts; each "
                                   "expert-parallel rank holds experts / expert.size of them",
                                   e, moe.experts)};
  }
  if (stage % e != 0) {
    return GridProblem{
        "parallel.expert.size",
        fmt::format("expert.size {} does not divide tensor.size {} x context.size {} x "
                    "data.size {} = {}, the GPUs of a pipeline stage the expert groups are "
                    "drawn from",
                    e, plan.tensor.size, plan.context.size, plan.data.size, stage)};
  }
  if (plan.expert.tensor != 1) {
    return GridProblem{"parallel.expert.tensor",
                       fmt::format("expert tensor parallelism {} is not modelled; use 1 (each "
                                   "expert whole on one GPU)",
                                   plan.expert.tensor)};
  }
  if (plan.tensor.kind != TensorKind::one_d) {
    return GridProblem{"parallel.tensor.kind",
                       fmt::format("mixture of experts runs with 1d tensor parallelism, not {}",
                                   to_string(plan.tensor.kind))};
  }
  if (moe.shared_ffn() % plan.tensor.size != 0) {
    return GridProblem{
        "model.moe.shared_experts",
        fmt::format("the shared experts' width {} (shared_experts {} x "
                    "expert_ffn {}) is not divisible by tensor.size {}",
                    moe.shared_ffn(), moe.shared_experts, moe.expert_ffn, plan.tensor.size)};
  }
  if (plan.tensor.size > 1 && !plan.tensor.sequence_parallel) {
    return GridProblem{"parallel.tensor.sequence_parallel",
                       fmt::format("tensor.size {} with experts needs sequence_parallel true "
                                   "(Megatron-Core's rule: the router and the token dispatcher "
                                   "work on each rank's sequence shard)",
                                   plan.tensor.size)};
  }
  if (plan.data.zero > 1) {
    return GridProblem{"parallel.data.zero",
                       fmt::format("ZeRO stage {} with experts is not modelled; use 0 or 1 (the "
                                   "distributed optimizer, sharding the experts' state over "
                                   "their expert-data-parallel group)",
                                   plan.data.zero)};
  }
  return std::nullopt;
}

}  // namespace trainsim
