#include "reports/scenario_run.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "sim/replay.hpp"
#include "sim/stuck_report.hpp"

namespace trainsim::reports {

ScenarioRun run_scenario(const Scenario& scenario, const hw::HardwareProfile& hardware,
                         ProgramScope scope, const sim::ReplayOptions& replay) {
  ScenarioRun run{scenario, hardware, build_program(scenario, scope), {}, {}};
  if (scenario.stragglers.any() && replay.kernel_slowdowns.empty()) {
    sim::ReplayOptions slowed = replay;
    slowed.kernel_slowdowns = kernel_slowdowns(scenario.stragglers, scenario.gpus);
    run.result = sim::replay(run.program, run.hardware, slowed);
  } else {
    run.result = sim::replay(run.program, run.hardware, replay);
  }
  if (!run.result.stuck.empty()) {
    throw std::runtime_error(sim::describe_deadlock(run.program, run.result));
  }
  run.summary = summarize(run.scenario, run.hardware, run.program, run.result);
  return run;
}

ScenarioRun run_scenario_file(const std::filesystem::path& file, ProgramScope scope,
                              const sim::ReplayOptions& replay) {
  const Scenario scenario = inputs::load_scenario(file);
  return run_scenario(scenario, inputs::scenario_hardware(scenario), scope, replay);
}

}  // namespace trainsim::reports
