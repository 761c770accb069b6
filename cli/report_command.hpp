#pragma once
// `trainsim report NAME [--out DIR]`, `trainsim report --all`, `trainsim report --check
// NAME|--all`: regenerates a report's directory (reproductions/NAME/ or reports/analyses/NAME/:
// README.md's marked blocks, one CSV per table, one SVG per plot) from the code, or checks that
// the committed files are what it regenerates.

#include <CLI/CLI.hpp>

namespace trainsim::cli {

/// Registers the subcommand.
void add_report_command(CLI::App& app);

}  // namespace trainsim::cli
