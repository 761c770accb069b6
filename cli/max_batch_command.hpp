#pragma once
// `trainsim max-batch SCENARIO [--json FILE]`: the largest batch that fits in GPU memory.

#include <CLI/CLI.hpp>

namespace trainsim::cli {

/// Registers the subcommand.
void add_max_batch_command(CLI::App& app);

}  // namespace trainsim::cli
