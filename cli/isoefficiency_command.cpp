#include "cli/isoefficiency_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/progress_bar.hpp"
#include "cli/report_arguments.hpp"
#include "documents/atomic_file.hpp"
#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/errors.hpp"
#include "reports/analyses/isoefficiency_report.hpp"
#include "reports/analyses/scheme_comparison.hpp"
#include "sim/analysis/isoefficiency.hpp"

namespace trainsim::cli {
namespace {

// Search limits: a hidden size of 2^17 (a 24-layer model's iteration at batch 192 x 512
// tokens stays far inside the picosecond clock's range) and a batch of 8192 sequences.
constexpr std::int64_t kDefaultMaxHidden = 131072;
constexpr std::int64_t kDefaultMaxBatch = 8192;

struct IsoCommandOptions {
  std::filesystem::path scenario;
  std::string tensor = "1d,2d,2.5d,3d";
  double target = 0.8;
  std::int64_t max_gpus = 512;
  std::string axis = "hidden";
  std::int64_t max_size = 0;  ///< 0: the axis's default
  std::int64_t depth = 2;
  std::string json;
  std::string plot;
  unsigned threads = 0;
};

sim::IsoAxis parse_axis(const std::string& text) {
  if (text == "hidden") return sim::IsoAxis::hidden;
  if (text == "batch") return sim::IsoAxis::batch;
  throw CLI::ValidationError("--axis", fmt::format("valid: hidden, batch; got '{}'", text));
}

// What the analysis found, with what it was asked (the request points into `scenario`).
struct IsoOutcome {
  Scenario scenario;
  std::string hardware;
  sim::IsoefficiencyOptions options;
  std::vector<sim::SchemeIsoefficiency> schemes;

  reports::IsoRequest request() const { return {&scenario, hardware, options}; }
};

IsoOutcome analyze(const IsoCommandOptions& o, const ProcessGroup* processes) {
  if (!(o.target > 0.0 && o.target < 1.0)) {
    throw CLI::ValidationError(
        "--target", fmt::format("an efficiency strictly between 0 and 1; got {}", o.target));
  }
  if (o.max_gpus < 2) {
    throw CLI::ValidationError("--max-gpus",
                               fmt::format("at least 2 (a TP block); got {}", o.max_gpus));
  }
  if (o.depth < 2) {
    throw CLI::ValidationError("--depth", fmt::format("a 2.5d depth >= 2; got {}", o.depth));
  }
  if (o.max_size < 0) {
    throw CLI::ValidationError("--max-size", fmt::format("at least 1; got {}", o.max_size));
  }
  const std::vector<reports::TensorVariant> variants = [&] {
    try {
      return reports::parse_tensor_variants(o.tensor, o.depth);
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--tensor", e.what());
    }
  }();
  IsoOutcome outcome{inputs::load_scenario(o.scenario), {}, {}, {}};
  const Scenario& scenario = outcome.scenario;
  const hw::HardwareProfile hardware = inputs::scenario_hardware(scenario);

  outcome.hardware = hardware.name;
  reports::IsoRequest request{&scenario, hardware.name, {}};
  request.options.search.target = o.target;
  request.options.search.axis = parse_axis(o.axis);
  request.options.search.max_size =
      o.max_size > 0 ? o.max_size
                     : (request.options.search.axis == sim::IsoAxis::hidden ? kDefaultMaxHidden
                                                                            : kDefaultMaxBatch);
  request.options.max_gpus = o.max_gpus;
  request.options.depth = o.depth;

  std::vector<TensorKind> kinds;
  for (const reports::TensorVariant& v : variants)
    kinds.push_back(v.kind);
  // The plan `trainsim compare` would run for this kind on a block of p GPUs alone; a problem
  // it names for the scenario's own sizes is left to the search, which varies them.
  const sim::PlanForScheme plan_for = [&](TensorKind kind, std::int64_t gpus) {
    Scenario block = scenario;
    block.parallel.tensor.size = gpus;
    block.parallel.data = DataParallel{};
    block.parallel.pipeline = PipelineParallel{};
    const std::optional<std::int64_t> depth =
        kind == TensorKind::two_and_half_d ? std::optional(o.depth) : std::nullopt;
    return reports::variant_plan(block, {kind, depth}).plan;
  };
  outcome.options = request.options;
  sim::IsoefficiencyOptions options = request.options;
  ProgressBar bar;
  options.progress = bar.callback();
  options.threads = o.threads;
  options.processes = processes;
  outcome.schemes = sim::analyze_isoefficiency(scenario, hardware, kinds, options, plan_for);
  bar.clear();
  const std::vector<sim::SchemeIsoefficiency>& schemes = outcome.schemes;
  const bool none = std::all_of(schemes.begin(), schemes.end(),
                                [](const sim::SchemeIsoefficiency& s) { return s.points.empty(); });
  if (none) {
    // The misses with their best E; plans rejected outright are in the table above.
    std::string misses;
    for (const sim::SchemeIsoefficiency& s : schemes) {
      for (const sim::SkippedCount& k : s.skipped) {
        if (k.best_efficiency) misses += fmt::format("; {}", k.reason);
      }
    }
    throw Infeasible(fmt::format("no scheme of '{}' reaches E = {} on {}{}", o.tensor, o.target,
                                 o.scenario.string(), misses));
  }
  return outcome;
}

void run_isoefficiency(const IsoCommandOptions& o, Job& job) {
  if (!o.json.empty()) documents::check_destination(o.json);
  if (!o.plot.empty()) documents::check_destination(o.plot);
  const IsoOutcome outcome = analyze(o, job.group());
  if (!job.writes()) return;
  const reports::IsoRequest request = outcome.request();
  std::cout << reports::isoefficiency_text(request, outcome.schemes);
  if (!o.json.empty()) {
    documents::write_atomically(
        o.json, reports::isoefficiency_json(request, outcome.schemes).dump(2) + "\n");
  }
  if (!o.plot.empty()) reports::write_isoefficiency_plot(o.plot, request, outcome.schemes);
}

void define_options(CLI::App& cmd, IsoCommandOptions& o) {
  cmd.add_option("scenario", o.scenario, "Scenario YAML file")->required();
  cmd.add_option("--target", o.target, "Efficiency to reach, in (0, 1)")->capture_default_str();
  cmd.add_option("--max-gpus", o.max_gpus, "Largest device count p")->capture_default_str();
  cmd.add_option("--axis", o.axis, "What grows: hidden (batch fixed) or batch (hidden size fixed)")
      ->capture_default_str();
  cmd.add_option("--max-size", o.max_size,
                 "Largest hidden size (default 131072) or batch (default 8192) searched");
  cmd.add_option("--tensor", o.tensor, "Comma-separated schemes")->capture_default_str();
  cmd.add_option("--depth", o.depth, "2.5d depth d, fixed: p = d·q²")->capture_default_str();
  cmd.add_option("--json", o.json, "Write the analysis as JSON to this file");
  cmd.add_option("--plot", o.plot, "Write the log-log plot as SVG to this file");
  cmd.add_option("--threads", o.threads, "Points searched at once (0: one per core)")
      ->capture_default_str();
}

}  // namespace

void add_isoefficiency_command(CLI::App& app, Job& job) {
  auto options = std::make_shared<IsoCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "isoefficiency",
      "Per tensor scheme and device count, the hidden size (or batch) at which the parallel "
      "efficiency T1/(p·Tp) reaches a target; the fitted growth exponent of W ~ p^k");
  define_options(*cmd, *options);
  cmd->callback([options, &job] { run_isoefficiency(*options, job); });
}

documents::ReportContent isoefficiency_report(const std::filesystem::path& root,
                                              const std::vector<std::string>& args) {
  IsoCommandOptions options = parse_report_options(define_options, "isoefficiency", args);
  options.scenario = root / options.scenario;
  const IsoOutcome outcome = analyze(options, nullptr);
  documents::ReportContent content =
      reports::isoefficiency_content(outcome.request(), outcome.schemes);
  add_command_block(content, "isoefficiency", args);
  return content;
}

}  // namespace trainsim::cli
