#pragma once
// `trainsim schema scenario|profile [-o FILE]`: the JSON Schema of an input kind, for editors.

#include <CLI/CLI.hpp>

namespace trainsim::cli {

/// Registers the subcommand.
void add_schema_command(CLI::App& app);

}  // namespace trainsim::cli
