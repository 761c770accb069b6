#pragma once
// `trainsim validate [NAME]`: reproduce published results, print figure / ours / error.

#include <CLI/CLI.hpp>

namespace trainsim::cli {

/// Registers the subcommand; it fails (exit 1) when a comparison leaves its tolerance.
void add_validate_command(CLI::App& app);

}  // namespace trainsim::cli
