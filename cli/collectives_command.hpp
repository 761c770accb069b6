#pragma once
// `trainsim collectives PROFILE --gpus N`: what the profile predicts for one collective alone
// on an idle cluster over a sweep of sizes, in nccl-tests' columns (size, time, algbw, busbw)
// with the algorithm NCCL's choice gives, to hold beside an all_reduce_perf log of the machine.

#include <CLI/CLI.hpp>

namespace trainsim::cli {

/// Registers the subcommand.
void add_collectives_command(CLI::App& app);

}  // namespace trainsim::cli
