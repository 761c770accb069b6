#include "cli/simulate_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/parameters.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/build_program.hpp"
#include "reports/atomic_file.hpp"
#include "reports/chrome_trace.hpp"
#include "reports/json_report.hpp"
#include "reports/summary.hpp"
#include "reports/summary_table.hpp"
#include "sim/replay.hpp"

namespace trainsim::cli {
namespace {

struct SimulateOptions {
  std::filesystem::path scenario;
  std::filesystem::path json;
  std::filesystem::path trace;
  bool every_rank = false;
};

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

// Bad output paths fail before the simulation, not after it.
void check_outputs(const SimulateOptions& options) {
  if (!options.json.empty() && !options.trace.empty() &&
      std::filesystem::weakly_canonical(options.json) ==
          std::filesystem::weakly_canonical(options.trace)) {
    throw std::runtime_error(
        fmt::format("--json and --trace name the same file {}: one would overwrite the other",
                    options.json.string()));
  }
  if (!options.json.empty()) reports::check_destination(options.json);
  if (!options.trace.empty()) reports::check_destination(options.trace);
}

void run_simulate(const SimulateOptions& options) {
  check_outputs(options);
  const Scenario scenario = inputs::load_scenario(options.scenario);
  const hw::HardwareProfile hardware = inputs::load_hardware_profile(scenario.hardware_file);
  const program::Program program = build_program(
      scenario, options.every_rank ? ProgramScope::every_rank : ProgramScope::representative);
  const sim::SimulationResult result = sim::replay(program, hardware);
  if (!result.stuck.empty()) throw std::runtime_error(describe_deadlock(program, result));
  const reports::Summary summary = reports::summarize(scenario, hardware, program, result);
  std::cout << reports::format_summary(scenario, hardware, summary);

  if (!options.json.empty()) {
    reports::write_atomically(options.json, reports::to_json(scenario, summary).dump(2) + "\n");
  }
  if (!options.trace.empty()) {
    reports::write_atomically(options.trace, [&](std::ostream& out) {
      reports::write_chrome_trace(out, program, result);
    });
  }
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto options = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Predict one training iteration of a scenario on its hardware profile");
  cmd->add_option("scenario", options->scenario, "Scenario YAML file")->required();
  cmd->add_option("--json", options->json, "Write the summary as JSON to this file");
  cmd->add_option("--trace", options->trace,
                  "Write a Chrome/Perfetto trace (one process per GPU, one thread per stream)");
  cmd->add_flag("--full", options->every_rank,
                "Record and replay every GPU instead of one representative per class of "
                "identical GPUs");
  cmd->footer("\n" + inputs::scenario_parameters_help());
  cmd->callback([options] { run_simulate(*options); });
}

}  // namespace trainsim::cli
