#include "reports/reproductions/tensor_schemes.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <utility>

namespace trainsim::reports {

void check_states_plan(const SchemeResult& row, const Scenario& stated) {
  if (row.problem) {
    throw std::runtime_error(
        fmt::format("{}: the {} scheme cannot run the stated configuration: {}", stated.name,
                    row.name, *row.problem));
  }
  const TensorParallel& ran = row.plan.tensor;
  const TensorParallel& file = stated.parallel.tensor;
  if (ran.kind != file.kind || ran.size != file.size || ran.depth != file.depth ||
      ran.grid_order != file.grid_order || row.plan.data.size != stated.parallel.data.size ||
      row.plan.recompute != stated.parallel.recompute) {
    throw std::logic_error(
        fmt::format("{}: the {} scheme compared is not the plan its scenario file states",
                    stated.name, row.name));
  }
}

double step_ratio(const SchemeResult& a, const SchemeResult& b) {
  if (!a.step_time || !b.step_time) return NAN;
  return *a.step_time / *b.step_time;
}

std::string memory_note(std::span<const SchemeResult> rows) {
  std::string over;
  for (const SchemeResult& r : rows) {
    if (r.step_time && !r.fits) over += (over.empty() ? "" : ", ") + r.name;
  }
  return over.empty() ? over : over + " over memory";
}

Scenario with_hidden(Scenario scenario, std::int64_t hidden) {
  scenario.model.hidden = hidden;
  scenario.model.ffn = 4 * hidden;
  return scenario;
}

Scenario with_batch(Scenario scenario, std::int64_t global_batch) {
  scenario.training.global_batch = global_batch;
  scenario.training.micro_batch = global_batch / scenario.parallel.data.size;
  return scenario;
}

Scenario varied(const Scenario& scenario, SweepAxis axis, std::int64_t value) {
  return axis == SweepAxis::hidden ? with_hidden(scenario, value) : with_batch(scenario, value);
}

Sweep sweep_over(SweepAxis axis, const Scenario& stated, std::string_view what, std::string y_label,
                 const std::vector<std::string>& series) {
  const bool hidden = axis == SweepAxis::hidden;
  Sweep s;
  s.id = hidden ? "sweep-hidden" : "sweep-batch";
  s.x_label = hidden ? "hidden size" : "batch";
  s.title = fmt::format("{} vs {} ({} GPUs, {} {})", what, s.x_label, stated.gpus,
                        hidden ? "batch" : "hidden",
                        hidden ? stated.training.global_batch : stated.model.hidden);
  s.y_label = std::move(y_label);
  for (const std::string& name : series)
    s.series.push_back({name, {}});
  return s;
}

double stated_value(const Scenario& stated, SweepAxis axis) {
  return static_cast<double>(axis == SweepAxis::hidden ? stated.model.hidden
                                                       : stated.training.global_batch);
}

}  // namespace trainsim::reports
