#include "cli/sweep_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/progress_bar.hpp"
#include "documents/atomic_file.hpp"
#include "inputs/yaml_reader.hpp"
#include "models/errors.hpp"
#include "reports/analyses/scenario_sweep.hpp"

namespace trainsim::cli {
namespace {

struct SweepCliOptions {
  std::vector<std::filesystem::path> scenarios;
  std::vector<std::string> vary;
  unsigned threads = 0;
  std::string csv;
  std::string json;
};

void run_sweep_command(const SweepCliOptions& o, Job& job) {
  std::vector<reports::SweepAxis> axes;
  for (const std::string& text : o.vary) {
    try {
      axes.push_back(reports::parse_sweep_axis(text));
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--vary", e.what());
    }
  }
  std::set<std::string> keys;
  for (const reports::SweepAxis& axis : axes) {
    for (const std::string& key : axis.keys) {
      if (!keys.insert(key).second) {
        throw CLI::ValidationError(
            "--vary", fmt::format("{} is varied twice; give all its values in one --vary", key));
      }
    }
  }
  // A missing file fails the sweep at once; a run the loader rejects is a row.
  for (const std::filesystem::path& file : o.scenarios)
    inputs::require_file(file);
  if (!o.csv.empty()) documents::check_destination(o.csv);
  if (!o.json.empty()) documents::check_destination(o.json);
  const std::vector<reports::SweepRun> runs = reports::sweep_runs(o.scenarios, axes);
  ProgressBar bar;
  reports::SweepOptions options;
  options.threads = o.threads;
  options.processes = job.group();
  options.progress = bar.callback();
  const std::vector<reports::SweepResult> results = reports::run_sweep(runs, options);
  bar.clear();
  const auto predicted =
      std::find_if(results.begin(), results.end(),
                   [](const reports::SweepResult& r) { return r.error.empty(); });
  if (predicted == results.end()) {
    // Every run failed: most likely one mistake (a key misspelt) that each run repeats.
    throw ConfigError({}, fmt::format("no run of the sweep has a prediction; the first: {}",
                                      results.front().error));
  }
  if (!job.writes()) return;
  std::cout << reports::sweep_text(runs, results);
  if (!o.csv.empty()) {
    documents::write_atomically(o.csv, reports::sweep_table(runs, results).csv());
  }
  if (!o.json.empty()) {
    documents::write_atomically(o.json, reports::sweep_json(runs, results).dump(2) + "\n");
  }
}

}  // namespace

void add_sweep_command(CLI::App& app, Job& job) {
  auto options = std::make_shared<SweepCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Simulate every scenario with every combination of the varied values; one table of "
      "iteration time, throughput, MFU and peak memory (under mpirun -np N the runs are "
      "shared by the processes)");
  cmd->add_option("scenarios", options->scenarios, "Scenario YAML files")->required();
  cmd->add_option("--vary", options->vary,
                  "KEY=V1,V2,…: a dotted scenario field and its values, e.g. "
                  "parallel.tensor.size=2,4,8; KEY+KEY=V+V,… varies fields together, e.g. "
                  "parallel.tensor.size+parallel.data.size=2+4,4+2. Repeat for more axes: "
                  "every combination runs")
      ->allow_extra_args(false)
      ->take_all();
  cmd->add_option("--threads", options->threads, "Runs simulated at once (0: one per core)")
      ->capture_default_str();
  cmd->add_option("--csv", options->csv, "Write the table as CSV to this file");
  cmd->add_option("--json", options->json, "Write the runs as JSON to this file");
  cmd->callback([options, &job] { run_sweep_command(*options, job); });
}

}  // namespace trainsim::cli
