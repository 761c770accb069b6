#pragma once
// NeMo / Megatron-Bridge YAML configs (ecosystem-formats.md §2) into a scenario: Bridge's
// ConfigContainer (model:, train:, dataset:, ddp:, mixed_precision:) and NeMo 1's Hydra form
// (trainer:, model:) both name Megatron's TransformerConfig fields, so both become Megatron
// flags and share `scenario_from_megatron`.

#include <filesystem>
#include <string_view>

#include "inputs/import/imported_scenario.hpp"

namespace trainsim::inputs::import {

/// The scenario the config `text` (read from `file`) trains. Throws ConfigError naming
/// file:line:column, the key, the value and what is valid.
ImportedScenario import_nemo(std::string_view text, const std::filesystem::path& file,
                             const ImportOptions& options);

}  // namespace trainsim::inputs::import
