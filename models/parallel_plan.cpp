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

}  // namespace trainsim
