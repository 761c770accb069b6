#pragma once
// JSON Schemas (draft 2020-12) of the two input kinds, written from the tables the loaders
// use (inputs/parameters for scenarios, inputs/profile_keys for hardware profiles), so an
// editor's YAML language server can check and complete files (`trainsim schema`). The loaders
// check more than a schema can say (TP x PP x DP = gpus, provenance for every figure, units'
// ranges); a schema only catches what it can, early.

#include <nlohmann/json.hpp>

namespace trainsim::inputs {

/// The scenario file's schema: every key of the parameter table, nested by section, with its
/// type, range or choices, default and description; unknown keys rejected.
nlohmann::ordered_json scenario_schema();

/// The hardware profile's schema: every key of the profile table; quantities as strings with
/// a number and a unit of their dimension.
nlohmann::ordered_json profile_schema();

}  // namespace trainsim::inputs
