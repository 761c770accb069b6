#include "cli/validate_command.hpp"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "inputs/hwprofile_loader.hpp"
#include "models/errors.hpp"
#include "reports/reproductions/reproduction.hpp"

namespace trainsim::cli {
namespace {

std::string known_names() {
  std::string names;
  for (const reports::Reproduction& r : reports::reproductions()) {
    names += names.empty() ? r.name : ", " + r.name;
  }
  return names;
}

void run_validate(const std::string& only) {
  const std::filesystem::path root = inputs::hwprofiles_directory().parent_path();
  int failures = 0;
  int ran = 0;
  for (const reports::Reproduction& r : reports::reproductions()) {
    if (!only.empty() && r.name != only) continue;
    ++ran;
    const reports::ReproductionReport report = r.run(root);
    fmt::print("{}\n", reports::format_comparisons(fmt::format("{} — {}", r.name, r.title),
                                                   report.comparisons));
    if (!report.notes.empty()) fmt::print("{}\n", report.notes);
    const int failed = reports::count_failures(report.comparisons);
    fmt::print("{}: {} comparisons, {} outside tolerance\n\n", r.name, report.comparisons.size(),
               failed);
    failures += failed;
  }
  if (ran == 0) {
    throw Infeasible(fmt::format("no reproduction named '{}'; known: {}", only, known_names()));
  }
  if (failures > 0) {
    throw std::runtime_error(fmt::format("{} comparisons outside their tolerance", failures));
  }
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto only = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Reproduce published results: the figure, our prediction and the signed error");
  cmd->add_option("name", *only, "Run only this reproduction (" + known_names() + ")");
  cmd->callback([only] { run_validate(*only); });
}

}  // namespace trainsim::cli
