#include "reports/reproductions/tensor_schemes.hpp"

#include <fmt/format.h>

#include <utility>

#include "reports/scenario_run.hpp"
#include "sim/max_batch.hpp"

namespace trainsim::reports {

SchemeFigures measure_scheme(const Scenario& scenario, const hw::HardwareProfile& hardware,
                             bool search_max_batch) {
  const ScenarioRun run = run_scenario(scenario, hardware);
  SchemeFigures f;
  f.step = run.summary.iteration_time;
  f.fits = run.summary.memory.fits;
  if (search_max_batch) f.max_batch = sim::find_max_batch(scenario, hardware).global_batch;
  return f;
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
