#pragma once
// Loader for hardware profiles (hwprofiles/*.yaml) into hw::HardwareProfile, and the lookup
// of profile names. Every numeric figure in a profile must carry a provenance entry.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "models/errors.hpp"
#include "sim/hardware_profile.hpp"

namespace trainsim::inputs {

/// The hwprofiles/ directory: <TRAINSIM_SOURCE_ROOT>/hwprofiles as compiled in, else
/// $TRAINSIM_ROOT/hwprofiles, else the first hwprofiles/ found walking up from the executable.
/// Throws ConfigError listing the places tried when none exists.
std::filesystem::path hwprofiles_directory();

/// Names of the profiles in hwprofiles/ (file names without .yaml), sorted.
std::vector<std::string> available_profiles();

/// Resolves `hardware` as written in a scenario: a path (it contains '/' or ends in .yaml),
/// taken relative to `base_dir`, or a profile name in hwprofiles/. A missing file or an
/// unknown name throws ConfigError at `where`, naming `field` and the available profiles.
std::filesystem::path resolve_hardware_profile(std::string_view hardware,
                                               const std::filesystem::path& base_dir,
                                               const SourceLocation& where,
                                               std::string_view field = "hardware");

/// Loads and checks one profile: unknown or missing keys, units, ranges, sorted efficiency
/// curves without duplicates, and provenance for every numeric field (and only for fields
/// that exist). Throws ConfigError.
hw::HardwareProfile load_hardware_profile(const std::filesystem::path& file);

}  // namespace trainsim::inputs
