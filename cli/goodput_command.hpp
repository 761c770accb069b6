#pragma once
// `trainsim goodput SCENARIO (--tokens T | --steps N | --days D) [--interval-steps K]
// [--samples N] [--seed S] [--json FILE]`: the scenario's run under its profile's
// interruptions (the `reliability:` section): checkpoint cost, the interval, the effective
// share of wall time and the distribution of days to train.

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "documents/report_content.hpp"

namespace trainsim::cli {

/// Registers the subcommand.
void add_goodput_command(CLI::App& app);

/// The command run with its own `args` (the scenario path relative to `root`) as a report:
/// blocks `command` and `output`.
documents::ReportContent goodput_report(const std::filesystem::path& root,
                                        const std::vector<std::string>& args);

}  // namespace trainsim::cli
