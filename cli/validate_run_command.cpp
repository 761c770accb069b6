#include "cli/validate_run_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>

#include "documents/atomic_file.hpp"
#include "inputs/hwprofile_loader.hpp"
#include "inputs/kineto_trace.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/errors.hpp"
#include "reports/kineto_breakdown.hpp"
#include "reports/kineto_validation.hpp"
#include "reports/measured_run_json.hpp"
#include "reports/run_validation.hpp"
#include "reports/scenario_run.hpp"

namespace trainsim::cli {
namespace {

struct ValidateRunOptions {
  std::filesystem::path measured;
  std::filesystem::path scenario;
  std::string hardware;  ///< overrides the profile named in MEASURED.json (or the scenario's)
  std::filesystem::path kineto;
  std::filesystem::path json;
};

// --kineto TRACE [SCENARIO]: the trace's breakdown, then (with a scenario) the comparison.
void run_kineto(const ValidateRunOptions& options) {
  if (!options.scenario.empty()) {
    throw ConfigError({options.scenario},
                      "with --kineto, give one positional argument (the "
                      "scenario the trace measured) or none");
  }
  const std::filesystem::path& scenario_file = options.measured;  // the one positional
  const inputs::KinetoTrace trace = inputs::load_kineto_trace(options.kineto);
  const reports::KinetoBreakdown breakdown = reports::kineto_breakdown(trace);
  fmt::print("{}", reports::format_kineto_breakdown(breakdown));
  if (!options.json.empty())
    documents::write_atomically(options.json, reports::kineto_breakdown_json(breakdown));
  if (scenario_file.empty()) return;
  // Refused before the scenario is simulated: there is nothing to compare it with.
  if (breakdown.steps.empty())
    throw ConfigError({options.kineto}, std::string(reports::kNoProfilerSteps));

  const Scenario scenario = inputs::load_scenario(scenario_file);
  hw::HardwareProfile hw;
  std::string hardware = scenario.hardware;
  if (options.hardware.empty()) {
    hw = inputs::scenario_hardware(scenario);
  } else {
    hardware = options.hardware;
    // A path typed on the command line is the shell's: relative to the working directory.
    hw = inputs::load_hardware_profile(inputs::resolve_hardware_profile(
        options.hardware, std::filesystem::current_path(), {"--hardware"}, "--hardware"));
  }
  const reports::ScenarioRun run = reports::run_scenario(scenario, hw);
  reports::KinetoValidation v =
      reports::validate_kineto(breakdown, run.program, hw, run.result.iteration_time);
  v.scenario = scenario.name;
  v.hardware = hardware;
  fmt::print("\n{}", reports::format_kineto_validation(v));
}

void run_validate_run(const ValidateRunOptions& options) {
  if (!options.kineto.empty()) {
    run_kineto(options);
    return;
  }
  if (!options.json.empty())
    throw ConfigError({options.json}, "--json writes a --kineto trace's breakdown: give --kineto");
  if (options.measured.empty() || options.scenario.empty()) {
    throw ConfigError({"validate-run"},
                      "validate-run needs MEASURED.json and the scenario it ran (or --kineto "
                      "TRACE [SCENARIO])");
  }
  const MeasuredRun measured = reports::load_measured_run(options.measured);
  const Scenario scenario = inputs::load_scenario(options.scenario);
  if (measured.scenario != scenario.name) {
    throw ConfigError({options.measured},
                      fmt::format("scenario '{}' was measured, but {} is scenario '{}': "
                                  "validate a run against the scenario it ran",
                                  measured.scenario, options.scenario.string(), scenario.name));
  }
  // The profile named on the command line, else the one the run was measured for.
  const std::string hardware = options.hardware.empty() ? measured.hardware : options.hardware;
  const std::filesystem::path profile = inputs::resolve_hardware_profile(
      hardware,
      options.hardware.empty() ? options.scenario.parent_path() : std::filesystem::current_path(),
      {options.measured}, options.hardware.empty() ? "hardware" : "--hardware");
  const hw::HardwareProfile hw = inputs::load_hardware_profile(profile);
  const reports::ScenarioRun run = reports::run_scenario(scenario, hw);
  reports::RunValidation v =
      reports::validate_run(measured, run.program, hw, run.result.iteration_time);
  v.hardware = hardware;
  fmt::print("{}", reports::format_run_validation(v));
}

}  // namespace

void add_validate_run_command(CLI::App& app) {
  auto options = std::make_shared<ValidateRunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate-run",
      "Predicted versus measured times of a GPU run (exec --backend cuda --time --json), or of "
      "a PyTorch profiler trace (--kineto TRACE [SCENARIO])");
  cmd->add_option("measured", options->measured,
                  "MEASURED.json written by exec --json (with --kineto: the scenario, optional)")
      ->check(CLI::ExistingFile);
  cmd->add_option("scenario", options->scenario, "The scenario the run executed");
  cmd->add_option("--kineto", options->kineto,
                  "A PyTorch profiler (Kineto) trace, .json or .json.gz: its steps, GPU time per "
                  "kernel family and per stream; with a scenario, predicted against it")
      ->check(CLI::ExistingFile);
  cmd->add_option("--json", options->json, "--kineto: write the trace's breakdown as JSON");
  cmd->add_option("--hardware", options->hardware,
                  "Hardware profile (name in hwprofiles/ or path) for the prediction; default: "
                  "the one named in MEASURED.json");
  cmd->callback([options] { run_validate_run(*options); });
}

}  // namespace trainsim::cli
