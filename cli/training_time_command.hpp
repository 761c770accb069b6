#pragma once
// `trainsim training-time SCENARIO --max-gpus G (--tokens N | --target-loss L | both)
// [--min-gpus M] [--batch-span K] [--threads N] [--max-micro-batch M] [--no-grids]
// [--no-failures] [--samples N] [--seed S] [--json FILE] [--csv FILE] [--plot FILE.svg]`: the
// shortest time to train the scenario's model over batch, GPU count and layout
// (sim/analysis/training_time.hpp), and the time/cost Pareto front; where the profile has a
// reliability: section, also under its interruptions (sim/analysis/training_goodput.hpp).

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "documents/report_content.hpp"

#include "cli/job.hpp"

namespace trainsim::cli {

void add_training_time_command(CLI::App& app, Job& job);

/// `trainsim report training-time`: the search with `args` (as typed after `trainsim
/// training-time`; the scenario relative to `root`) as report blocks, table and plot.
documents::ReportContent training_time_report(const std::filesystem::path& root,
                                              const std::vector<std::string>& args);

}  // namespace trainsim::cli
