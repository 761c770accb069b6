#include "models/parallel_plan.hpp"

#include <fmt/format.h>

namespace trainsim {

std::optional<std::string> PipelineParallel::uneven_problem(std::int64_t layers) const {
  if (!uneven()) return std::nullopt;
  if (size < 2) {
    return fmt::format("uneven stages need a pipeline of 2 or more stages (got {})", size);
  }
  if (chunks != 1 || (schedule != PipelineSchedule::gpipe &&
                      schedule != PipelineSchedule::one_f_one_b)) {
    return fmt::format(
        "uneven stages are modelled with one chunk per stage (schedule gpipe or 1f1b); got "
        "schedule {} with {} chunks",
        to_string(schedule), chunks);
  }
  const std::int64_t stated = first_stage_layers.value_or(0) + last_stage_layers.value_or(0);
  const std::int64_t others = size - (first_stage_layers ? 1 : 0) - (last_stage_layers ? 1 : 0);
  for (const auto& given : {first_stage_layers, last_stage_layers}) {
    if (given && *given < 1) return fmt::format("a stage holds at least one layer (got {})", *given);
  }
  const bool split = others > 0 ? stated < layers && (layers - stated) % others == 0
                                 : stated == layers;
  if (!split) {
    return fmt::format(
        "the first and last stages' {} layers leave {} of the model's {} for the {} other "
        "stages, which must divide evenly with at least one layer each",
        stated, layers - stated, layers, others);
  }
  return std::nullopt;
}

std::optional<std::string> tp_comm_overlap_problem(const ParallelPlan& plan) {
  const TensorParallel& tp = plan.tensor;
  if (!tp.comm_overlap) return std::nullopt;
  if (tp.kind != TensorKind::one_d) {
    return fmt::format(
        "Transformer Engine overlaps 1d tensor parallelism's sequence gathers "
        "and scatters, not {}'s; set comm_overlap to false",
        to_string(tp.kind));
  }
  if (tp.size < 2 || !tp.sequence_parallel) {
    return fmt::format(
        "the overlap runs the sequence-parallel all-gathers and reduce-scatters "
        "as ring exchanges: it needs tensor.size > 1 (got {}) and "
        "sequence_parallel true (got {}), as Megatron's --tp-comm-overlap does",
        tp.size, tp.sequence_parallel);
  }
  return std::nullopt;
}

}  // namespace trainsim
