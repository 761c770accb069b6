#include "cli/simulate_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "cli/keep_until_exit.hpp"
#include "inputs/parameters.hpp"
#include "reports/atomic_file.hpp"
#include "reports/chrome_trace.hpp"
#include "reports/json_report.hpp"
#include "reports/scenario_run.hpp"
#include "reports/summary_table.hpp"

namespace trainsim::cli {
namespace {

struct SimulateOptions {
  std::filesystem::path scenario;
  std::filesystem::path json;
  std::filesystem::path trace;
  bool every_rank = false;
};

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
  sim::ReplayOptions replay;
  replay.record_memory_timeline = !options.trace.empty();  // the trace's memory counters
  replay.keep_state_until_exit = true;  // as `run` below: the exit frees it faster
  reports::ScenarioRun run = reports::run_scenario_file(
      options.scenario,
      options.every_rank ? ProgramScope::every_rank : ProgramScope::representative, replay);
  std::cout << reports::format_summary(run.scenario, run.hardware, run.summary);

  if (!options.json.empty()) {
    reports::write_atomically(options.json,
                              reports::to_json(run.scenario, run.summary).dump(2) + "\n");
  }
  if (!options.trace.empty()) {
    reports::write_atomically(options.trace, [&](std::ostream& out) {
      reports::write_chrome_trace(out, run.program, run.result);
    });
  }
  std::cout.flush();
  keep_until_exit(std::move(run));  // the exit frees it faster than its destructors would
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
