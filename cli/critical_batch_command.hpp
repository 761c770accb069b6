#pragma once
// `trainsim critical-batch (--params N | --loss L | --scenario FILE) [--batch B]
// [--target-loss L] [--json FILE]`: Kaplan's critical batch and the steps/compute trade-off.

#include <CLI/CLI.hpp>

namespace trainsim::cli {

/// Registers the subcommand.
void add_critical_batch_command(CLI::App& app);

}  // namespace trainsim::cli
