#pragma once
// `trainsim training-time SCENARIO --max-gpus G (--tokens N | --target-loss L | both)
// [--min-gpus M] [--batch-span K] [--threads N] [--max-micro-batch M] [--no-grids]
// [--json FILE] [--csv FILE] [--plot FILE.svg]`: the shortest time to train the scenario's
// model over batch, GPU count and layout (sim/analysis/training_time.hpp), and the time/cost
// Pareto front.

#include <CLI/CLI.hpp>

namespace trainsim::cli {

void add_training_time_command(CLI::App& app);

}  // namespace trainsim::cli
