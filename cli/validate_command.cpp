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
#include "models/spread.hpp"
#include "reproductions/claims/claim_map_report.hpp"
#include "reproductions/comparison_set.hpp"
#include "reproductions/comparison_sets.hpp"
#include "reproductions/reproduction.hpp"
#include "reproductions/reproduction_codec.hpp"
#include "reproductions/reproduction_content.hpp"

namespace trainsim::cli {
namespace {

struct ValidateOptions {
  std::vector<std::string> only;  ///< empty: every reproduction
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

// The reproductions asked for, each run once: one after the other, each printed as it ends;
// under mpirun, shared by the processes and printed in order once all have run (plots
// written by process 0 alone).
std::vector<reproductions::ReproductionRun> run_reproductions(const ValidateOptions& o, Job& job) {
  const ProcessGroup* processes = job.group();
  const std::string plots = job.writes() ? o.plots : std::string{};
  for (const std::string& name : o.only) {
    const auto& all = reproductions::reproductions();
    if (std::none_of(all.begin(), all.end(),
                     [&](const reproductions::Reproduction& r) { return r.name == name; })) {
      throw Infeasible(fmt::format("no reproduction named '{}'; known: {}", name, known_names()));
    }
  }
  // In the fixed order of reproductions(), whatever the order named.
  std::vector<const reproductions::Reproduction*> chosen;
  for (const reproductions::Reproduction& r : reproductions::reproductions()) {
    if (o.only.empty() || std::find(o.only.begin(), o.only.end(), r.name) != o.only.end())
      chosen.push_back(&r);
  }
  const std::filesystem::path root = inputs::hwprofiles_directory().parent_path();
  const reproductions::ReproductionOptions options{o.sweeps || !o.plots.empty()};
  std::vector<reproductions::ReproductionRun> runs;
  ProgressBar bar;
  if (!spreads(processes)) {
    for (const reproductions::Reproduction* r : chosen) {
      bar.update("validate", runs.size(), chosen.size());
      runs.push_back({r->name, r->run(root, options)});
      bar.clear();
      print_reproduction(*r, runs.back(), plots);
    }
    return runs;
  }
  const std::vector<reproductions::ReproductionReport> reports =
      spread<reproductions::ReproductionReport>(
          processes, chosen.size(), 0, [&](std::size_t i) { return chosen[i]->run(root, options); },
          [](ByteWriter& out, const reproductions::ReproductionReport& report) {
            reproductions::encode(out, report);
          },
          reproductions::decode_report,
          [&](std::size_t done, std::size_t total) { bar.update("validate", done, total); });
  bar.clear();
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    runs.push_back({chosen[i]->name, reports[i]});
    print_reproduction(*chosen[i], runs.back(), plots);
  }
  return runs;
}

void run_validate(const ValidateOptions& o, Job& job) {
  if (!o.json.empty()) documents::check_destination(o.json);
  const std::vector<reproductions::ReproductionRun> runs = run_reproductions(o, job);
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
  if (!o.json.empty() && job.writes()) {
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

void add_validate_command(CLI::App& app, Job& job) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Reproduce published results: the figure, our prediction and the signed error, and per "
      "set of figures n, mean / median / p90 / max |error| and the signed bias");
  CLI::Option* name =
      cmd->add_option("name", o->only, "Run only these reproductions (" + known_names() + ")");
  cmd->add_flag("--all", o->all,
                "Run every reproduction, then print the summary of every set (the default "
                "without a name)")
      ->excludes(name);
  cmd->add_flag("--sweeps", o->sweeps,
                "Also run each reproduction's sweeps and claim maps and print their tables");
  cmd->add_option("--plots", o->plots,
                  "Run the sweeps and maps and write each as an SVG plot (gnuplot) to "
                  "DIR/<reproduction>/<sweep>.svg and map-<id>.svg "
                  "(`trainsim report` regenerates the committed reports, plots included)");
  cmd->add_option("--json", o->json,
                  "Write the set summary (and each reproduction's counts) as JSON to FILE");
  cmd->callback([o, &job] { run_validate(*o, job); });
}

}  // namespace trainsim::cli
