#pragma once
// `trainsim exec SCENARIO --backend cpu|meta [--check]`: run the reference executor.

#include <CLI/CLI.hpp>

namespace trainsim::cli {

/// Registers the subcommand.
void add_exec_command(CLI::App& app);

}  // namespace trainsim::cli
