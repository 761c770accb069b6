#pragma once
// `trainsim plan SCENARIO [--gpus N] [--batch B] [--top K] [--threads N] [--max-micro-batch M]
// [--no-grids] [--json FILE] [--csv FILE]`: searches every valid layout of the scenario's
// model on N GPUs (sim/analysis/layout_search.hpp) and prints the best, replayed in full, with
// why they win; beside them the scenario's own layout when N and B are the scenario's.

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "documents/report_content.hpp"

#include "cli/job.hpp"

namespace trainsim::cli {

void add_plan_command(CLI::App& app, Job& job);

/// `trainsim report plan`: the search with `args` (as typed after `trainsim plan`; the
/// scenario relative to `root`), as the result block, the `best` table and the command block.
documents::ReportContent plan_report(const std::filesystem::path& root,
                                     const std::vector<std::string>& args);

}  // namespace trainsim::cli
