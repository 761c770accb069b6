#include "cli/validate_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "inputs/hwprofile_loader.hpp"
#include "models/errors.hpp"
#include "reports/gnuplot_plot.hpp"
#include "reports/reproductions/reproduction.hpp"
#include "reports/reproductions/reproduction_content.hpp"

namespace trainsim::cli {
namespace {

std::string known_names() {
  std::string names;
  for (const reports::Reproduction& r : reports::reproductions()) {
    names += names.empty() ? r.name : ", " + r.name;
  }
  return names;
}

void run_validate(const std::string& only, bool sweeps, const std::string& plots) {
  const std::filesystem::path root = inputs::hwprofiles_directory().parent_path();
  int failures = 0;
  int ran = 0;
  for (const reports::Reproduction& r : reports::reproductions()) {
    if (!only.empty() && r.name != only) continue;
    ++ran;
    const reports::ReproductionReport report = r.run(root, {sweeps || !plots.empty()});
    fmt::print("{}\n", reports::format_comparisons(fmt::format("{} — {}", r.name, r.title),
                                                   report.comparisons));
    if (!report.claims.empty()) {
      fmt::print("{}\n", reports::format_claims("Claims (" + r.name + ")", report.claims));
    }
    if (!report.notes.empty()) fmt::print("{}\n", report.notes);
    for (const reports::ReportTable& table : report.tables)
      fmt::print("{}:\n{}\n", table.id, table.markdown());
    for (const reports::Sweep& sweep : report.sweeps) {
      fmt::print("{}\n", sweep.format());
      if (plots.empty()) continue;
      const std::filesystem::path dir = std::filesystem::path(plots) / r.name;
      std::filesystem::create_directories(dir);
      const std::filesystem::path file = dir / (sweep.id + ".svg");
      reports::write_svg(file, sweep.plot());
      fmt::print("wrote {}\n\n", file.string());
    }
    fmt::print("{}\n\n", reports::reproduction_summary(r.name, report));
    failures += reports::reproduction_failures(report);
  }
  if (ran == 0) {
    throw Infeasible(fmt::format("no reproduction named '{}'; known: {}", only, known_names()));
  }
  if (failures > 0) {
    throw std::runtime_error(
        fmt::format("{} comparisons outside their tolerance or claims not as predicted", failures));
  }
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto only = std::make_shared<std::string>();
  auto plots = std::make_shared<std::string>();
  auto sweeps = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "validate", "Reproduce published results: the figure, our prediction and the signed error");
  cmd->add_option("name", *only, "Run only this reproduction (" + known_names() + ")");
  cmd->add_flag("--sweeps", *sweeps,
                "Also run each reproduction's sweeps (hidden size, batch) and print their tables");
  cmd->add_option(
      "--plots", *plots,
      "Run the sweeps and write each as an SVG plot (gnuplot) to DIR/<reproduction>/<sweep>.svg "
      "(`trainsim report` regenerates the committed reports, plots included)");
  cmd->callback([only, sweeps, plots] { run_validate(*only, *sweeps, *plots); });
}

}  // namespace trainsim::cli
