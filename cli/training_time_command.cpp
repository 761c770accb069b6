#include "cli/training_time_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/phase_clock.hpp"
#include "cli/progress_bar.hpp"
#include "cli/report_arguments.hpp"
#include "cli/search_options.hpp"
#include "documents/atomic_file.hpp"
#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "reports/analyses/training_time_report.hpp"
#include "sim/analysis/training_time.hpp"

namespace trainsim::cli {
namespace {

struct TrainingTimeOptions {
  std::filesystem::path scenario;
  std::optional<double> tokens;
  std::optional<double> target_loss;
  std::int64_t max_gpus = 0;
  std::int64_t min_gpus = 1;
  int batch_span = 3;
  SearchCliOptions search;
  std::string json;
  std::string csv;
  std::string plot;
  bool no_failures = false;
  std::int64_t samples = 1000;
  std::uint64_t seed = 1;
};

reports::TrainingTimeReport analyze_training_time(const TrainingTimeOptions& o,
                                                  const ProcessGroup* processes) {
  for (const std::string& path : {o.json, o.csv, o.plot}) {
    if (!path.empty()) documents::check_destination(path);
  }
  const Scenario scenario = inputs::load_scenario(o.scenario);
  const hw::HardwareProfile hardware = inputs::scenario_hardware(scenario);

  sim::TrainingTimeRequest request;
  request.tokens = o.tokens;
  request.target_loss = o.target_loss;
  request.reference_batch = scenario.training.global_batch;
  request.max_gpus = o.max_gpus;
  request.min_gpus = o.min_gpus;
  request.batch_span = o.batch_span;
  apply_search_options(o.search, request.search);  // keeps the request's top = 1
  request.search.space.fp8 = scenario.training.fp8;
  request.search.processes = processes;
  request.search.space.overlap_param_gather = scenario.parallel.data.overlap_param_gather;
  request.search.space.tp_comm_overlap = scenario.parallel.tensor.comm_overlap;
  // Failures are on wherever the profile says what interrupts its runs.
  if (hardware.reliability && !o.no_failures)
    request.failures = sim::FailureOptions{o.samples, o.seed};
  ProgressBar bar;
  PhaseClock clock;
  request.search.progress = [&](std::string_view phase, std::size_t done, std::size_t total) {
    clock.tick(phase, done);
    bar.update(phase, done, total);
  };

  reports::TrainingTimeReport report;
  report.scenario = scenario.name;
  report.hardware = hardware.name;
  report.seq_len = scenario.model.seq_len;
  report.max_gpus = o.max_gpus;
  report.result = sim::search_training_time(scenario.model, hardware, request);
  // Timing goes to stderr: stdout and the files stay byte-identical between runs.
  bar.clear();
  fmt::print(stderr, "searched {} points in {:.1f} s ({})\n",
             report.result.points.size() + report.result.skipped.size(), clock.elapsed_s(),
             clock.summary());
  if (request.failures) report.reliability = hardware.reliability;
  return report;
}

void run_training_time(const TrainingTimeOptions& o, Job& job) {
  const reports::TrainingTimeReport report = analyze_training_time(o, job.group());
  if (!job.writes()) return;
  std::cout << reports::training_time_text(report);
  if (!o.json.empty()) {
    documents::write_atomically(o.json, reports::training_time_json(report).dump(2) + "\n");
  }
  if (!o.csv.empty()) documents::write_atomically(o.csv, reports::training_time_csv(report));
  if (!o.plot.empty()) reports::write_training_time_plot(o.plot, report);
}

void define_options(CLI::App& cmd, TrainingTimeOptions& o) {
  cmd.add_option("scenario", o.scenario, "Scenario YAML file (model, hardware, batch)")->required();
  cmd.add_option("--tokens", o.tokens,
                 "Tokens a run at the critical batch processes (E = N, E_min = N/2)");
  cmd.add_option("--target-loss", o.target_loss,
                 "Target loss in nats: B_crit(L), and S_min(N, L) without --tokens (default "
                 "B_crit: the scenario's batch)");
  cmd.add_option("--max-gpus", o.max_gpus, "Most GPUs to use")->required();
  cmd.add_option("--min-gpus", o.min_gpus, "Fewest GPUs tried")->capture_default_str();
  cmd.add_option("--batch-span", o.batch_span,
                 "Batches from B_crit/2^K to B_crit·2^K in powers of two")
      ->capture_default_str();
  add_search_options(cmd, o.search);
  cmd.add_option("--json", o.json, "Write the result as JSON to this file");
  cmd.add_option("--csv", o.csv, "Write every point as CSV to this file");
  cmd.add_option("--plot", o.plot, "Write the Pareto front as SVG to this file");
  cmd.add_flag("--no-failures", o.no_failures,
               "Leave out the profile's interruptions (its reliability: section): the "
               "failure-free answer alone");
  cmd.add_option("--samples", o.samples, "Monte Carlo runs per point, with failures")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{10'000'000}));
  cmd.add_option("--seed", o.seed,
                 "Monte Carlo seed, with failures (each point mixes it with its batch and GPUs)")
      ->capture_default_str();
}

}  // namespace

documents::ReportContent training_time_report(const std::filesystem::path& root,
                                              const std::vector<std::string>& args) {
  TrainingTimeOptions options = parse_report_options(define_options, "training-time", args);
  options.scenario = root / options.scenario;
  documents::ReportContent content =
      reports::training_time_content(analyze_training_time(options, nullptr));
  add_command_block(content, "training-time", args);
  return content;
}

void add_training_time_command(CLI::App& app, Job& job) {
  auto o = std::make_shared<TrainingTimeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "training-time",
      "Shortest time to train the scenario's model: search batch (powers of two around Kaplan's "
      "critical batch), GPU count (halvings of --max-gpus) and layout (as `plan`), charging "
      "S = S_min·(1 + B_crit/B) steps; prints the best and the time/GPU-hours Pareto front");
  define_options(*cmd, *o);
  cmd->callback([o, &job] { run_training_time(*o, job); });
}

}  // namespace trainsim::cli
