#pragma once
// `trainsim fit-runs RUNS.csv --base PROFILE -o OUT.yaml --holdout FRACTION`: efficiency
// figures fitted from measured whole-run iteration times (vTrain's format).

#include <CLI/CLI.hpp>

namespace trainsim::cli {

/// Registers the subcommand.
void add_fit_runs_command(CLI::App& app);

}  // namespace trainsim::cli
