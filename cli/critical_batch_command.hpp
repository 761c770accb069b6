#pragma once
// `trainsim critical-batch (--params N | --loss L | --scenario FILE) [--batch B]
// [--target-loss L] [--json FILE]`: Kaplan's critical batch and the steps/compute trade-off.

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "documents/report_content.hpp"

namespace trainsim::cli {

/// Registers the subcommand.
void add_critical_batch_command(CLI::App& app);

/// The analysis run with the command's own `args` (a --scenario path relative to `root`) as a
/// report: blocks `command` and `output` (the text the command prints) and the table
/// `trade-off`.
documents::ReportContent critical_batch_report(const std::filesystem::path& root,
                                               const std::vector<std::string>& args);

}  // namespace trainsim::cli
