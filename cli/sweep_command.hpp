#pragma once
// `trainsim sweep SCENARIO… [--vary KEY=V1,V2,…]… [--threads N] [--csv FILE] [--json FILE]`:
// simulates every scenario with every combination of the varied values and prints one table
// (reports/analyses/scenario_sweep.hpp). Under `mpirun -np N`, the runs are shared by the
// job's processes; the output is the one-process output.

#include <CLI/CLI.hpp>

#include "cli/job.hpp"

namespace trainsim::cli {

/// Fails (exit 2, the first run's error) when no run has a prediction.
void add_sweep_command(CLI::App& app, Job& job);

}  // namespace trainsim::cli
