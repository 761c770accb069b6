#pragma once
// `trainsim simulate SCENARIO [--json FILE] [--trace FILE] [--full]`.

#include <CLI/CLI.hpp>

namespace trainsim::cli {

/// Registers the subcommand; its callback loads, builds the Program, replays and reports.
void add_simulate_command(CLI::App& app);

}  // namespace trainsim::cli
