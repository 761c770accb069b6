#pragma once
// A calibrated profile as YAML: the base profile's file with the fitted fields replaced and
// their provenance saying where they came from and how well they predict held-out rows.

#include <filesystem>
#include <string>
#include <string_view>

#include "calibrate/fit_profile.hpp"
#include "calibrate/raw_measurements.hpp"

namespace trainsim::calibrate {

/// The YAML text of the calibrated profile `name`: `base_file` re-emitted (its comments are
/// not kept) with each fitted field and its provenance replaced. Figures are written with
/// enough digits to reload to within 1e-6 relative.
std::string fitted_profile_yaml(const std::filesystem::path& base_file, const ProfileFit& fit,
                                const RawMeasurements& raw, std::string_view name);

}  // namespace trainsim::calibrate
