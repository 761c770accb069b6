#include "cli/plan_command.hpp"

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
#include "reports/analyses/plan_report.hpp"
#include "sim/analysis/layout_search.hpp"
#include "sim/analysis/straggler_robustness.hpp"

namespace trainsim::cli {
namespace {

struct PlanOptions {
  std::filesystem::path scenario;
  std::optional<std::int64_t> gpus;   ///< absent: the scenario's
  std::optional<std::int64_t> batch;  ///< absent: the scenario's global batch
  std::size_t top = 3;
  double stragglers = 0.0;  ///< 0: no robustness ranking
  SearchCliOptions search;
  std::string json;
  std::string csv;
};

// The search the options ask for (progress on the bar, per-phase wall time on stderr).
reports::PlanReport analyze_plan(const PlanOptions& o, const ProcessGroup* processes) {
  if (o.top < 1) throw CLI::ValidationError("--top", fmt::format("at least 1; got {}", o.top));
  if (o.gpus && *o.gpus < 1) {
    throw CLI::ValidationError("--gpus", fmt::format("at least 1; got {}", *o.gpus));
  }
  if (o.batch && *o.batch < 1) {
    throw CLI::ValidationError("--batch", fmt::format("at least 1 sequence; got {}", *o.batch));
  }
  if (!o.json.empty()) documents::check_destination(o.json);
  if (!o.csv.empty()) documents::check_destination(o.csv);
  const Scenario scenario = inputs::load_scenario(o.scenario);
  const hw::HardwareProfile hardware = inputs::scenario_hardware(scenario);
  const std::int64_t gpus = o.gpus.value_or(scenario.gpus);
  const std::int64_t batch = o.batch.value_or(scenario.training.global_batch);

  ProgressBar bar;
  sim::SearchOptions options;
  apply_search_options(o.search, options);
  options.space.fp8 = scenario.training.fp8;
  options.space.overlap_param_gather = scenario.parallel.data.overlap_param_gather;
  options.space.tp_comm_overlap = scenario.parallel.tensor.comm_overlap;
  options.top = o.top;
  options.processes = processes;
  PhaseClock clock;
  options.progress = [&](std::string_view phase, std::size_t done, std::size_t total) {
    clock.tick(phase, done);
    bar.update(phase, done, total);
  };
  reports::PlanReport report;
  report.scenario = scenario.name;
  report.hardware = hardware.name;
  if (gpus == scenario.gpus && batch == scenario.training.global_batch) {
    options.reference =
        sim::Layout{scenario.parallel, scenario.training.micro_batch, scenario.training.fp8};
  }
  report.search = sim::search_layouts(scenario.model, hardware, gpus, batch, options);
  if (o.stragglers > 0.0) {
    for (std::size_t i = 0; i < report.search.best.size(); ++i) {
      options.progress("stragglers", i, report.search.best.size());
      report.robustness.push_back(sim::straggler_robustness(
          scenario.model, hardware, report.search.best[i].candidate.layout, batch, o.stragglers));
    }
    options.progress("stragglers", report.search.best.size(), report.search.best.size());
  }
  // Timing goes to stderr: stdout and the files stay byte-identical between runs.
  const double seconds = clock.elapsed_s();
  fmt::print(stderr, "searched {} layouts in {:.1f} s ({:.0f} layouts/s; {})\n",
             report.search.layouts, seconds, static_cast<double>(report.search.layouts) / seconds,
             clock.summary());
  return report;
}

void run_plan(const PlanOptions& o, Job& job) {
  const reports::PlanReport report = analyze_plan(o, job.group());
  if (!job.writes()) return;
  std::cout << reports::plan_text(report);
  if (!o.json.empty()) {
    documents::write_atomically(o.json, reports::plan_json(report).dump(2) + "\n");
  }
  if (!o.csv.empty()) documents::write_atomically(o.csv, reports::plan_csv(report));
}

void define_options(CLI::App& cmd, PlanOptions& o) {
  cmd.add_option("scenario", o.scenario, "Scenario YAML file (model, batch, hardware)")->required();
  cmd.add_option("--gpus", o.gpus, "GPUs to lay out (default: the scenario's)");
  cmd.add_option("--batch", o.batch, "Global batch in sequences (default: the scenario's)");
  cmd.add_option("--top", o.top, "Layouts replayed in full and listed")->capture_default_str();
  add_search_options(cmd, o.search);
  cmd.add_option("--stragglers", o.stragglers,
                 "Also rank the best layouts by what one GPU with kernels F times as long costs "
                 "them (F > 1: 1.2 = 20 % slower), at GPU 0 or the last GPU, the worse")
      ->check(CLI::Range(1.0, 100.0));
  cmd.add_option("--json", o.json, "Write the result as JSON to this file");
  cmd.add_option("--csv", o.csv, "Write every estimated layout as CSV to this file");
}

}  // namespace

documents::ReportContent plan_report(const std::filesystem::path& root,
                                     const std::vector<std::string>& args) {
  PlanOptions options = parse_report_options(define_options, "plan", args);
  options.scenario = root / options.scenario;
  // The result is the same on any number of threads (a test), so the report uses them all.
  documents::ReportContent content = reports::plan_content(analyze_plan(options, nullptr));
  add_command_block(content, "plan", args);
  return content;
}

void add_plan_command(CLI::App& app, Job& job) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "Search every valid layout (tensor kind and size, pipeline and schedule, data parallel "
      "and ZeRO, sequence parallelism, recomputation, micro batch) of the scenario's model on "
      "N GPUs; print the fastest that fit, replayed in full");
  define_options(*cmd, *options);
  cmd->callback([options, &job] { run_plan(*options, job); });
}

}  // namespace trainsim::cli
