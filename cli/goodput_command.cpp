#include "cli/goodput_command.hpp"

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <optional>

#include "cli/positive_number.hpp"
#include "cli/report_arguments.hpp"
#include "documents/atomic_file.hpp"
#include "models/errors.hpp"
#include "reports/analyses/goodput_report.hpp"
#include "reports/scenario_run.hpp"
#include "sim/analysis/run_goodput.hpp"

namespace trainsim::cli {
namespace {

struct GoodputOptions {
  std::filesystem::path scenario;
  std::string tokens;
  std::string steps;
  std::string days;
  std::int64_t interval_steps = 0;  ///< 0: the best
  std::int64_t samples = 10'000;
  std::uint64_t seed = 1;
  std::filesystem::path json;
};

reports::GoodputAnalysis analyze(const GoodputOptions& o) {
  const int lengths = static_cast<int>(!o.tokens.empty()) + static_cast<int>(!o.steps.empty()) +
                      static_cast<int>(!o.days.empty());
  if (lengths != 1)
    throw CLI::ValidationError("goodput",
                               "give the run's length: one of --tokens, --steps or --days");
  const reports::ScenarioRun run = reports::run_scenario_file(o.scenario);
  const hw::HardwareProfile& hw = run.hardware;
  if (!hw.reliability) {
    throw Infeasible(fmt::format(
        "{}: profile \"{}\" ({}) has no reliability: section, so nothing interrupts its runs; "
        "add one (hwprofiles/README.md, \"reliability\"), as dgx-h100 has",
        o.scenario.string(), hw.name, hw.file.string()));
  }
  const std::int64_t tokens_per_step = run.summary.tokens_per_iteration;
  const Time iteration = run.summary.iteration_time;
  double steps = 0.0;
  if (!o.tokens.empty())
    steps = std::ceil(parse_positive("--tokens", o.tokens, true) /
                      static_cast<double>(tokens_per_step));
  else if (!o.steps.empty())
    steps = std::ceil(parse_positive("--steps", o.steps, true));
  else
    steps = std::ceil(parse_positive("--days", o.days, false) * 86400.0 / iteration.seconds());
  const std::int64_t gpus = run.scenario.gpus;
  const sim::RunGoodput goodput =
      o.interval_steps > 0
          ? sim::run_goodput_at(run.scenario.model, gpus, hw.node.gpus, iteration, *hw.reliability,
                                o.interval_steps)
          : sim::run_goodput(run.scenario.model, gpus, hw.node.gpus, iteration, *hw.reliability);
  return reports::analyze_goodput(run.scenario.name, hw.name, tokens_per_step, steps, goodput,
                                  o.samples, o.seed);
}

void define_options(CLI::App& cmd, GoodputOptions& o) {
  cmd.add_option("scenario", o.scenario, "Scenario YAML (its profile needs a reliability: section)")
      ->required();
  CLI::Option* tokens =
      cmd.add_option("--tokens", o.tokens, "The run's length in tokens: 15.6T, 300e9");
  CLI::Option* steps = cmd.add_option("--steps", o.steps, "The run's length in steps");
  CLI::Option* days =
      cmd.add_option("--days", o.days, "The run's length in days of work without failures");
  tokens->excludes(steps)->excludes(days);
  steps->excludes(days);
  cmd.add_option("--interval-steps", o.interval_steps,
                 "Checkpoint every K steps (default: the K with the best effective time)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1'000'000'000}));
  cmd.add_option("--samples", o.samples, "Monte Carlo runs (default 10000)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{10'000'000}));
  cmd.add_option("--seed", o.seed, "Monte Carlo seed (default 1; the same seed, the same runs)");
  cmd.add_option("--json", o.json, "Write the analysis as JSON to this file");
}

}  // namespace

void add_goodput_command(CLI::App& app) {
  auto o = std::make_shared<GoodputOptions>();
  CLI::App* cmd = app.add_subcommand(
      "goodput",
      "A run under its profile's interruptions: checkpoint cost and interval, effective time, "
      "days to train (p10, p50, p90)");
  define_options(*cmd, *o);
  cmd->callback([o] {
    if (!o->json.empty()) documents::check_destination(o->json);
    const reports::GoodputAnalysis a = analyze(*o);
    fmt::print("{}", reports::goodput_text(a));
    if (!o->json.empty())
      documents::write_atomically(o->json, reports::goodput_json(a).dump(2) + "\n");
  });
}

documents::ReportContent goodput_report(const std::filesystem::path& root,
                                        const std::vector<std::string>& args) {
  GoodputOptions options = parse_report_options(define_options, "goodput", args);
  options.scenario = root / options.scenario;
  documents::ReportContent content;
  add_command_block(content, "goodput", args);
  content.add_block("output", documents::fenced(reports::goodput_text(analyze(options))));
  return content;
}

}  // namespace trainsim::cli
