#include "cli/report_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/progress_bar.hpp"
#include "cli/report_sources.hpp"
#include "documents/report_files.hpp"
#include "documents/subprocess.hpp"
#include "inputs/hwprofile_loader.hpp"
#include "models/errors.hpp"

namespace trainsim::cli {
namespace {

struct ReportOptions {
  std::vector<std::string> names;
  bool all = false;
  bool check = false;
  std::string out;
};

std::string known_names() {
  std::string names;
  for (const ReportSource& s : report_sources())
    names += names.empty() ? s.name : ", " + s.name;
  return names;
}

std::vector<const ReportSource*> selected(const ReportOptions& o) {
  if (o.all == !o.names.empty()) {
    throw CLI::ValidationError("report",
                               "give report names or --all (not both); known: " + known_names());
  }
  std::vector<const ReportSource*> out;
  for (const ReportSource& s : report_sources()) {
    if (o.all || std::find(o.names.begin(), o.names.end(), s.name) != o.names.end()) {
      out.push_back(&s);
    }
  }
  for (const std::string& name : o.names) {
    if (std::none_of(out.begin(), out.end(),
                     [&](const ReportSource* s) { return s->name == name; })) {
      throw Infeasible(fmt::format("no report named '{}'; known: {}", name, known_names()));
    }
  }
  return out;
}

void run_report(const ReportOptions& o) {
  if (!o.out.empty() && (o.all || o.names.size() != 1)) {
    throw CLI::ValidationError("--out", "applies to one report name, not to --all");
  }
  const std::vector<const ReportSource*> sources = selected(o);
  const std::filesystem::path root = inputs::hwprofiles_directory().parent_path();
  std::vector<std::string> differing;
  ProgressBar bar;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const ReportSource* source = sources[i];
    const std::filesystem::path committed = root / source->directory;
    const std::filesystem::path readme = committed / "README.md";
    // The README is read after the (possibly long) computation, so prose edited meanwhile is
    // kept.
    bar.update("report", i, sources.size());
    const documents::ReportContent content = source->generate(root);
    bar.clear();
    const std::string readme_text =
        std::filesystem::exists(readme) ? documents::read_file(readme) : std::string();
    const documents::ReportFiles files = documents::render_report(
        source->name, source->title, content, readme_text, readme.string());
    const std::filesystem::path dir = o.out.empty() ? committed : std::filesystem::path(o.out);
    if (!o.check) {
      documents::write_report_files(files, dir);
      fmt::print("{}: wrote {} files to {}\n", source->name, files.size(), dir.string());
      continue;
    }
    const std::vector<documents::ReportDifference> differences =
        documents::compare_report_files(files, dir);
    if (differences.empty()) {
      fmt::print("{}: the {} committed files are what the code regenerates\n", source->name,
                 files.size());
      continue;
    }
    differing.push_back(source->name);
    fmt::print("{}: {} files differ from what the code regenerates:\n", source->name,
               differences.size());
    for (const documents::ReportDifference& d : differences)
      fmt::print("  {}: {}\n", (dir / d.file).string(), d.what);
  }
  if (!differing.empty()) {
    std::string names;
    for (const std::string& n : differing)
      names += (names.empty() ? "" : " ") + n;
    throw std::runtime_error(fmt::format(
        "committed reports differ from the code's: {} (regenerate with `trainsim report {}` and "
        "commit them)",
        names, names));
  }
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Regenerate a report's directory (reproductions/NAME/ or reports/analyses/NAME/: README.md's "
      "generated blocks, CSV tables, gnuplot SVG plots), or check the committed ones");
  cmd->add_option("name", o->names, "Reports to regenerate (" + known_names() + ")");
  cmd->add_flag("--all", o->all, "Every report");
  cmd->add_flag("--check", o->check,
                "Regenerate in memory and fail, listing each file and its first differing line, "
                "where the committed reports differ");
  cmd->add_option("--out", o->out,
                  "Write (with --check: compare) the report in DIR instead of its directory (its "
                  "README's prose still comes from the committed README.md)");
  cmd->callback([o] { run_report(*o); });
}

}  // namespace trainsim::cli
