#pragma once
// `trainsim validate-run MEASURED.json SCENARIO [--hardware PROFILE]`: the simulator's
// prediction for the rank a GPU run measured (exec --backend cuda --time --json) against the
// measurement, per op class, op name, layer and iteration, with the signed error.

#include <CLI/CLI.hpp>

namespace trainsim::cli {

void add_validate_run_command(CLI::App& app);

}  // namespace trainsim::cli
