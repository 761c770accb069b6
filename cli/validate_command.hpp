#pragma once
// `trainsim validate [NAME | --all] [--json FILE]`: reproduce published results, print figure /
// ours / error per comparison and the statistics of each set of comparisons.

#include <CLI/CLI.hpp>

#include "cli/job.hpp"

namespace trainsim::cli {

/// Registers the subcommand; it fails (exit 1) when a comparison or a set leaves its tolerance.
void add_validate_command(CLI::App& app, Job& job);

}  // namespace trainsim::cli
