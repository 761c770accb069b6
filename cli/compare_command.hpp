#pragma once
// `trainsim compare SCENARIO --tensor 1d,2d,2.5d [--depth D] [--json FILE|-]`: the scenario's
// model, batch and GPUs under each tensor-parallel scheme (reports/analyses/scheme_comparison.hpp).

#include <CLI/CLI.hpp>

namespace trainsim::cli {

void add_compare_command(CLI::App& app);

}  // namespace trainsim::cli
