#pragma once
// The one pipeline every command shares: scenario -> Program (meta backend) -> replay ->
// summary. Commands and reproductions call this instead of repeating the steps.

#include <filesystem>

#include "models/build_program.hpp"
#include "models/program.hpp"
#include "models/scenario.hpp"
#include "reports/summary.hpp"
#include "sim/hardware_profile.hpp"
#include "sim/replay.hpp"
#include "sim/simulation_result.hpp"

namespace trainsim::reports {

struct ScenarioRun {
  Scenario scenario;
  hw::HardwareProfile hardware;
  program::Program program;
  sim::SimulationResult result;
  Summary summary;
};

/// Builds the Program of `scenario`, replays it on `hardware` (with the scenario's stragglers
/// unless `replay` brings its own kernel slowdowns) and summarises. Throws
/// Infeasible for plans the executor cannot build and std::runtime_error (naming every stuck
/// op) if the schedule deadlocks. `replay` says what the result records beyond the summary
/// (a trace needs the memory timeline).
ScenarioRun run_scenario(const Scenario& scenario, const hw::HardwareProfile& hardware,
                         ProgramScope scope = ProgramScope::representative,
                         const sim::ReplayOptions& replay = {});

/// Loads the scenario and its hardware profile, then runs it.
ScenarioRun run_scenario_file(const std::filesystem::path& file,
                              ProgramScope scope = ProgramScope::representative,
                              const sim::ReplayOptions& replay = {});

}  // namespace trainsim::reports
