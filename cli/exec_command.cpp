#include "cli/exec_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "inputs/scenario_loader.hpp"
#include "models/build_program.hpp"
#include "models/equivalence_check.hpp"

namespace trainsim::cli {
namespace {

struct ExecOptions {
  std::filesystem::path scenario;
  std::string backend = "cpu";
  bool check = false;
  std::uint64_t seed = 1;
};

void run_exec(const ExecOptions& options) {
  const Scenario scenario = inputs::load_scenario(options.scenario);
  (void)scenario;
  throw std::runtime_error("not wired yet");
}

}  // namespace

void add_exec_command(CLI::App& app) {
  auto options = std::make_shared<ExecOptions>();
  CLI::App* cmd = app.add_subcommand("exec", "Run the reference executor on a scenario");
  cmd->add_option("scenario", options->scenario, "Scenario YAML file")->required();
  cmd->add_option("--backend", options->backend, "meta (record the Program) or cpu (Eigen, fp64)")
      ->check(CLI::IsMember({"meta", "cpu"}));
  cmd->add_flag("--check", options->check,
                "cpu: compare loss, every gradient and the updated parameters of every rank "
                "with a single-device fp64 run");
  cmd->add_option("--seed", options->seed, "Seed for the initial weights and the tokens");
  cmd->callback([options] { run_exec(*options); });
}

}  // namespace trainsim::cli
