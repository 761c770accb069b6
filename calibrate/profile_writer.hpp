#pragma once
// A calibrated profile as YAML: the base profile's file with the fitted fields replaced and
// their provenance saying where they came from and how well they predict held-out rows.

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "calibrate/fit_profile.hpp"

namespace trainsim::calibrate {

/// Where the measurements came from: the file and its environment record (date, GPU, ...).
struct MeasurementSource {
  std::filesystem::path file;
  std::map<std::string, std::string> environment;
};

/// The YAML text of the calibrated profile `name`: `base_file` re-emitted (its comments are
/// not kept) with each fitted field and its provenance replaced. Figures are written with
/// enough digits to reload to within 1e-6 relative.
std::string fitted_profile_yaml(const std::filesystem::path& base_file, const ProfileFit& fit,
                                const MeasurementSource& source, std::string_view name);

/// Writes the calibrated profile to `out` atomically (named after its file stem) and loads it
/// back: what was written must be a valid profile (a failure is a bug of the writer).
hw::HardwareProfile write_fitted_profile(const std::filesystem::path& out,
                                         const std::filesystem::path& base_file,
                                         const ProfileFit& fit, const MeasurementSource& source);

}  // namespace trainsim::calibrate
