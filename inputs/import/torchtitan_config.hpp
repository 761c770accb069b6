#pragma once
// torchtitan's job config TOML (ecosystem-formats.md §3; read with toml++) into a scenario.

#include <filesystem>
#include <string_view>

#include "inputs/import/imported_scenario.hpp"

namespace trainsim::inputs::import {

/// The scenario torchtitan would train with the config `text` (read from `file`). Throws
/// ConfigError naming file:line:column, the key, the value and what is valid.
ImportedScenario import_torchtitan(std::string_view text, const std::filesystem::path& file,
                                   const ImportOptions& options);

}  // namespace trainsim::inputs::import
