#include "cli/simulate_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/keep_until_exit.hpp"
#include "cli/progress_bar.hpp"
#include "documents/atomic_file.hpp"
#include "documents/gzip.hpp"
#include "inputs/parameters.hpp"
#include "models/expert_routing.hpp"
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
  std::vector<program::Rank> trace_ranks;
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
  if (!options.trace_ranks.empty() && options.trace.empty())
    throw std::runtime_error("--trace-ranks chooses the GPUs of a trace: give --trace FILE too");
  if (!options.json.empty()) documents::check_destination(options.json);
  if (!options.trace.empty()) documents::check_destination(options.trace);
}

// With experts routed unevenly, the cost of it: the same scenario with balanced routing.
void add_routing_cost(reports::ScenarioRun& run) {
  const std::optional<MoeSpec>& moe = run.scenario.model.moe;
  if (!moe || moe->routing == ExpertRouting::balanced) return;
  Scenario balanced = run.scenario;
  balanced.model.moe->routing = ExpertRouting::balanced;
  run.summary.balanced_routing_time =
      reports::run_scenario(balanced, run.hardware).summary.iteration_time;
  const ParallelPlan& plan = run.scenario.parallel;
  const std::int64_t tokens = run.scenario.training.micro_batch * run.scenario.model.seq_len /
                              (plan.tensor.size * plan.context.size);
  run.summary.busiest_expert_load =
      mean_busiest_rank_load(*moe, run.scenario.model.layers, plan.expert.size, tokens);
}

// With stragglers, what they cost: the same Program replayed without them.
void add_straggler_cost(reports::ScenarioRun& run) {
  if (!run.scenario.stragglers.any()) return;
  sim::ReplayOptions none;
  none.record_op_timings = false;
  const sim::SimulationResult base = sim::replay(run.program, run.hardware, none);
  run.summary.stragglers = reports::straggler_cost(
      run.program, kernel_slowdowns(run.scenario.stragglers, run.scenario.gpus), run.result, base,
      run.summary.critical_rank);
}

void run_simulate(const SimulateOptions& options) {
  check_outputs(options);
  sim::ReplayOptions replay;
  replay.record_memory_timeline = !options.trace.empty();  // the trace's memory counters
  replay.keep_state_until_exit = true;  // as `run` below: the exit frees it faster
  ProgressBar bar;
  replay.progress = bar.callback();
  reports::ScenarioRun run = reports::run_scenario_file(
      options.scenario,
      options.every_rank ? ProgramScope::every_rank : ProgramScope::representative, replay);
  bar.clear();
  add_routing_cost(run);
  add_straggler_cost(run);
  std::cout << reports::format_summary(run.scenario, run.hardware, run.summary);

  if (!options.json.empty()) {
    documents::write_atomically(options.json,
                                reports::to_json(run.scenario, run.summary).dump(2) + "\n");
  }
  if (!options.trace.empty()) {
    const reports::ChromeTraceOptions trace_options{options.trace_ranks};
    if (documents::is_gzip_path(options.trace.string())) {
      documents::write_atomically(options.trace, [&](std::ostream& out) {
        documents::write_gzip(out, [&](std::ostream& text) {
          reports::write_chrome_trace(text, run.program, run.result, trace_options);
        });
      });
    } else {
      documents::write_atomically(options.trace, [&](std::ostream& out) {
        reports::write_chrome_trace(out, run.program, run.result, trace_options);
      });
    }
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
                  "Write a Chrome/Perfetto trace (one process per GPU, one thread per stream, "
                  "flows from sends to receives and to each collective's last arrival); gzip "
                  "when the name ends in .gz");
  cmd->add_option("--trace-ranks", options->trace_ranks,
                  "The GPUs the trace shows (comma-separated, among those recorded; default: "
                  "every recorded GPU, one per class of identical GPUs)")
      ->delimiter(',');
  cmd->add_flag("--full", options->every_rank,
                "Record and replay every GPU instead of one representative per class of "
                "identical GPUs");
  cmd->footer("\n" + inputs::scenario_parameters_help());
  cmd->callback([options] { run_simulate(*options); });
}

}  // namespace trainsim::cli
