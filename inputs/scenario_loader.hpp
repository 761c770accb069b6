#pragma once
// Loader for scenario files (scenarios/**/*.yaml) into trainsim::Scenario. Keys, ranges,
// choices and defaults come from inputs/parameters; cross-field facts (TP x PP x DP = gpus,
// heads divisible by TP, ...) and not-yet-supported features are checked here.

#include <filesystem>
#include <span>

#include "inputs/scenario_override.hpp"

#include "models/scenario.hpp"
#include "sim/hardware_profile.hpp"

namespace trainsim::inputs {

/// Loads, completes with defaults and checks one scenario, and resolves its hardware profile
/// to a file (not loaded). Throws ConfigError naming file:line:column, field, value and what
/// would be valid.
Scenario load_scenario(const std::filesystem::path& file);

/// As above, with `overrides` written over the file's values first (every check applies to
/// them); an error names the overrides too.
Scenario load_scenario(const std::filesystem::path& file,
                       std::span<const ScenarioOverride> overrides);

/// The scenario's hardware profile, loaded, with what the scenario says of its framework
/// (`runtime:`) in place of the profile host section's. Throws ConfigError for a runtime
/// setting on a profile without a host section.
hw::HardwareProfile scenario_hardware(const Scenario& scenario);

}  // namespace trainsim::inputs
