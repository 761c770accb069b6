#include "cli/validate_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/progress_bar.hpp"
#include "documents/atomic_file.hpp"
#include "documents/gnuplot_plot.hpp"
#include "inputs/hwprofile_loader.hpp"
#include "models/errors.hpp"
#include "reproductions/claims/claim_map_report.hpp"
#include "reproductions/comparison_set.hpp"
#include "reproductions/comparison_sets.hpp"
#include "reproductions/reproduction.hpp"
#include "reproductions/reproduction_content.hpp"

namespace trainsim::cli {
namespace {

struct ValidateOptions {
  std::string only;
  bool all = false;
  bool sweeps = false;
  std::string plots;
  std::string json;
};

std::string known_names() {
  std::string names;
  for (const reproductions::Reproduction& r : reproductions::reproductions()) {
    names += names.empty() ? r.name : ", " + r.name;
  }
  return names;
}

// One reproduction's output: its comparisons, claims, notes, tables and sweeps, then its own
// sets (partial where a set also draws on reproductions not run here).
void print_reproduction(const reproductions::Reproduction& r,
                        const reproductions::ReproductionRun& run, const std::string& plots) {
  const reproductions::ReproductionReport& report = run.report;
  const std::string title = fmt::format("{} — {}", r.name, r.title);
  if (report.comparisons.empty()) {
    fmt::print("{}\n\n", title);
  } else {
    fmt::print("{}\n", reproductions::format_comparisons(title, report.comparisons));
  }
  if (!report.claims.empty()) {
    fmt::print("{}\n", reproductions::format_claims("Claims (" + r.name + ")", report.claims));
  }
  if (!report.notes.empty()) fmt::print("{}\n", report.notes);
  for (const documents::ReportTable& table : report.tables)
    fmt::print("{}:\n{}\n", table.id, table.markdown());
  for (const reproductions::Sweep& sweep : report.sweeps) {
    fmt::print("{}\n", sweep.format());
    if (plots.empty()) continue;
    const std::filesystem::path dir = std::filesystem::path(plots) / r.name;
    std::filesystem::create_directories(dir);
    const std::filesystem::path file = dir / (sweep.id + ".svg");
    documents::write_svg(file, sweep.plot());
    fmt::print("wrote {}\n\n", file.string());
  }
  for (const reproductions::claim_maps::ClaimMap& map : report.maps) {
    fmt::print("{}\n", reproductions::claim_maps::format_claim_map(map));
    if (plots.empty()) continue;
    const std::filesystem::path dir = std::filesystem::path(plots) / r.name;
    std::filesystem::create_directories(dir);
    const std::filesystem::path file = dir / ("map-" + map.spec.id + ".svg");
    documents::write_atomically(file,
                                documents::render_svg(reproductions::claim_maps::heatmap(map)));
    fmt::print("wrote {}\n\n", file.string());
  }
  const std::vector<reproductions::SetResult> sets = reproductions::evaluate_sets({&run, 1});
  if (!sets.empty())
    fmt::print("{}", reproductions::format_set_summary("Sets (" + r.name + ")", sets));
  fmt::print("{} sets: {}\n", r.name, reproductions::set_verdict_line(sets));
  fmt::print("{}\n\n", reproductions::reproduction_summary(r.name, report));
}

void run_validate(const ValidateOptions& o) {
  if (!o.json.empty()) documents::check_destination(o.json);
  const std::filesystem::path root = inputs::hwprofiles_directory().parent_path();
  std::vector<reproductions::ReproductionRun> runs;
  const std::size_t total = o.only.empty() ? reproductions::reproductions().size() : std::size_t{1};
  ProgressBar bar;
  for (const reproductions::Reproduction& r : reproductions::reproductions()) {
    if (!o.only.empty() && r.name != o.only) continue;
    bar.update("validate", runs.size(), total);
    runs.push_back({r.name, r.run(root, {o.sweeps || !o.plots.empty()})});
    bar.clear();
    print_reproduction(r, runs.back(), o.plots);
  }
  if (runs.empty()) {
    throw Infeasible(fmt::format("no reproduction named '{}'; known: {}", o.only, known_names()));
  }
  // Every set over all the reproductions that ran: with all of them (--all), each set whole.
  const std::vector<reproductions::SetResult> sets = reproductions::evaluate_sets(runs);
  if (o.only.empty()) {
    fmt::print("{}",
               reproductions::format_set_summary(
                   "Every set (error = ours / published - 1; bias = mean signed error; rows not "
                   "reproduced or whose setup their map chose, the + count, left out)",
                   sets));
    fmt::print("all sets: {}\n", reproductions::set_verdict_line(sets));
  }
  if (!o.json.empty()) {
    documents::write_atomically(o.json, reproductions::validation_json(runs, sets).dump(2) + "\n");
  }
  int failures = 0;
  for (const reproductions::ReproductionRun& run : runs)
    failures += reproductions::reproduction_failures(run.report);
  const int set_failures = reproductions::count_set_failures(sets);
  if (failures > 0 || set_failures > 0) {
    throw std::runtime_error(fmt::format(
        "{} comparisons outside their tolerance or claims not as predicted; {} set{} outside "
        "{} tolerance",
        failures, set_failures, set_failures == 1 ? "" : "s", set_failures == 1 ? "its" : "their"));
  }
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Reproduce published results: the figure, our prediction and the signed error, and per "
      "set of figures n, mean / median / p90 / max |error| and the signed bias");
  CLI::Option* name =
      cmd->add_option("name", o->only, "Run only this reproduction (" + known_names() + ")");
  cmd->add_flag("--all", o->all,
                "Run every reproduction, then print the summary of every set (the default "
                "without a name)")
      ->excludes(name);
  cmd->add_flag("--sweeps", o->sweeps,
                "Also run each reproduction's sweeps and claim maps and print their tables");
  cmd->add_option(
      "--plots", o->plots,
      "Run the sweeps and maps and write each as an SVG plot (gnuplot) to "
      "DIR/<reproduction>/<sweep>.svg and map-<id>.svg "
      "(`trainsim report` regenerates the committed reports, plots included)");
  cmd->add_option("--json", o->json,
                  "Write the set summary (and each reproduction's counts) as JSON to FILE");
  cmd->callback([o] { run_validate(*o); });
}

}  // namespace trainsim::cli
