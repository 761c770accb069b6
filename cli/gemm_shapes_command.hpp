#pragma once
// `trainsim gemm-shapes SCENARIO... -o shapes.csv`: the unique GEMM shapes of the scenarios'
// recorded Programs, for the GEMM microbenchmark (`trainsim-calibrate --shapes`).

#include <CLI/CLI.hpp>

namespace trainsim::cli {

/// Registers the subcommand.
void add_gemm_shapes_command(CLI::App& app);

}  // namespace trainsim::cli
