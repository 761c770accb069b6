#include "cli/validate_run_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/errors.hpp"
#include "reports/measured_run_json.hpp"
#include "reports/run_validation.hpp"
#include "reports/scenario_run.hpp"

namespace trainsim::cli {
namespace {

struct ValidateRunOptions {
  std::filesystem::path measured;
  std::filesystem::path scenario;
  std::string hardware;  ///< overrides the profile named in MEASURED.json
};

void run_validate_run(const ValidateRunOptions& options) {
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
  const std::filesystem::path profile =
      inputs::resolve_hardware_profile(hardware, options.scenario.parent_path(), {options.measured},
                                       options.hardware.empty() ? "hardware" : "--hardware");
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
      "Predicted versus measured times of a GPU run (exec --backend cuda --time --json)");
  cmd->add_option("measured", options->measured, "MEASURED.json written by exec --json")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("scenario", options->scenario, "The scenario the run executed")->required();
  cmd->add_option("--hardware", options->hardware,
                  "Hardware profile (name in hwprofiles/ or path) for the prediction; default: "
                  "the one named in MEASURED.json");
  cmd->callback([options] { run_validate_run(*options); });
}

}  // namespace trainsim::cli
