#pragma once
// `trainsim import megatron|nemo|torchtitan`: a framework's own configuration (a Megatron-LM
// launch script or argument list, a NeMo / Megatron-Bridge YAML, a torchtitan TOML) into a
// commented scenario YAML, every value traced to the setting it came from.

#include <CLI/CLI.hpp>

namespace trainsim::cli {

/// Registers the subcommand and its three formats.
void add_import_command(CLI::App& app);

}  // namespace trainsim::cli
