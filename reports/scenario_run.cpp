#include "reports/scenario_run.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "sim/replay.hpp"

namespace trainsim::reports {
namespace {

// A deadlock is a bug in a schedule: name every op that never ran and why.
std::string describe_deadlock(const program::Program& program,
                              const sim::SimulationResult& result) {
  std::string text = fmt::format("the schedule deadlocked: {} ops never ran", result.stuck.size());
  for (const sim::StuckOp& s : result.stuck) {
    std::string_view name = "?";
    for (const program::RankProgram& r : program.ranks) {
      if (r.rank == s.rank && s.op >= 0 && static_cast<std::size_t>(s.op) < r.ops.size()) {
        name = program.names.name(r.ops[static_cast<std::size_t>(s.op)].name);
      }
    }
    text += fmt::format("\n  GPU {} op {} ({}): {}", s.rank, s.op, name, s.reason);
  }
  return text;
}

}  // namespace

ScenarioRun run_scenario(const Scenario& scenario, const hw::HardwareProfile& hardware,
                         ProgramScope scope) {
  ScenarioRun run{scenario, hardware, build_program(scenario, scope), {}, {}};
  run.result = sim::replay(run.program, run.hardware);
  if (!run.result.stuck.empty()) {
    throw std::runtime_error(describe_deadlock(run.program, run.result));
  }
  run.summary = summarize(run.scenario, run.hardware, run.program, run.result);
  return run;
}

ScenarioRun run_scenario_file(const std::filesystem::path& file, ProgramScope scope) {
  const Scenario scenario = inputs::load_scenario(file);
  return run_scenario(scenario, inputs::load_hardware_profile(scenario.hardware_file), scope);
}

}  // namespace trainsim::reports
