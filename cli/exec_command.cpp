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
#include "models/errors.hpp"
#include "reports/program_table.hpp"

namespace trainsim::cli {
namespace {

// fp64 on one CPU core per rank: beyond this the check takes minutes and gigabytes.
constexpr std::int64_t kCpuParameterLimit = 50'000'000;

struct ExecOptions {
  std::filesystem::path scenario;
  std::string backend = "cpu";
  bool check = false;
  std::uint64_t seed = 1;
};

void run_meta(const Scenario& scenario) {
  const program::Program program = build_program(scenario, ProgramScope::every_rank);
  std::cout << reports::format_program_stats(program);
}

void run_cpu(const Scenario& scenario, const ExecOptions& options) {
  if (scenario.model.parameters() > kCpuParameterLimit) {
    throw Infeasible(fmt::format(
        "the cpu backend runs fp64 on this machine and is meant for small models; '{}' has {} "
        "parameters (limit {}): use --backend meta, or a scenario such as "
        "scenarios/tests/tiny-tp2-dp2.yaml",
        scenario.name, scenario.model.parameters(), kCpuParameterLimit));
  }
  const EquivalenceReport report = check_against_single_device(scenario.model, scenario.parallel,
                                                               scenario.training, options.seed);
  fmt::print("cpu backend (fp64): {} ranks as threads (TP {} {} × DP {}), seed {}\n", report.ranks,
             scenario.parallel.tensor.size, to_string(scenario.parallel.tensor.kind),
             scenario.parallel.data.size, options.seed);
  fmt::print("  loss, partitioned   {:.15g}\n", report.loss_partitioned);
  fmt::print("  loss, one device    {:.15g}\n", report.loss_single);
  if (!options.check) return;

  if (scenario.training.inference()) {
    fmt::print(
        "\n  inference: forward passes only, the loss is compared with one device's "
        "training loss\n");
  } else {
    fmt::print("\n  {:<28}{:>16}{:>16}\n", "parameter (relative error)", "gradient", "after Adam");
    for (const ParameterError& p : report.parameters) {
      fmt::print("  {:<28}{:>16.3e}{:>16.3e}\n", p.name, p.gradient, p.value);
    }
  }
  fmt::print("\n  largest relative error {:.3e} (loss {:.3e}); tolerance {:.0e}: {}\n",
             report.max_error, report.loss_error, report.tolerance,
             report.passed ? "PASSED" : "FAILED");
  if (report.uncompared > 0) {
    throw std::runtime_error(fmt::format(
        "{} gradient or parameter entries were held by no rank after the step (ZeRO shards "
        "must cover every entry)",
        report.uncompared));
  }
  if (!report.passed) {
    throw std::runtime_error(fmt::format(
        "the partitioned run differs from the single device by {:.3e} (tolerance {:.0e})",
        report.max_error, report.tolerance));
  }
}

void run_exec(const ExecOptions& options) {
  const Scenario scenario = inputs::load_scenario(options.scenario);
  if (options.backend == "meta") {
    run_meta(scenario);
  } else {
    run_cpu(scenario, options);
  }
}

}  // namespace

void add_exec_command(CLI::App& app) {
  auto options = std::make_shared<ExecOptions>();
  CLI::App* cmd = app.add_subcommand("exec", "Run the reference executor on a scenario");
  cmd->add_option("scenario", options->scenario, "Scenario YAML file")->required();
  cmd->add_option("--backend", options->backend,
                  "meta: record the Program of every GPU and count it; cpu: run it in fp64 "
                  "(Eigen, ranks as threads) beside a single device")
      ->check(CLI::IsMember({"meta", "cpu"}));
  cmd->add_flag("--check", options->check,
                "cpu: compare the loss, every gradient and the updated parameters of every rank "
                "with the single-device fp64 run, print the errors, fail above 1e-9");
  cmd->add_option("--seed", options->seed, "Seed for the initial weights and the tokens");
  cmd->callback([options] { run_exec(*options); });
}

}  // namespace trainsim::cli
