#pragma once
// `trainsim fit RAW.csv --base PROFILE -o OUT.yaml`: a calibrated hardware profile from raw
// microbenchmark measurements (calibrate/README.md).

#include <CLI/CLI.hpp>

namespace trainsim::cli {

/// Registers the subcommand.
void add_fit_command(CLI::App& app);

}  // namespace trainsim::cli
