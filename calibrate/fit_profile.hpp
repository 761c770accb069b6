#pragma once
// All fits of one raw measurement file against a base profile, in the order their models
// depend on each other: memory (HBM floor, launch) before GEMM, GEMM before interference.

#include <string>
#include <vector>

#include "calibrate/fit_summary.hpp"
#include "calibrate/raw_measurements.hpp"
#include "sim/hardware_profile.hpp"

namespace trainsim::calibrate {

/// The fitted profile and what each fit reports.
struct ProfileFit {
  hw::HardwareProfile profile;      ///< the base with the fitted fields replaced
  std::vector<FitSummary> fits;     ///< one per fit that had rows
  std::size_t rows = 0;             ///< rows in the file
  std::size_t unverified_rows = 0;  ///< verified = no: left out of every fit unless included
  std::vector<std::string> notes;   ///< rows read but not fitted, and why
};

/// Which rows the fits take.
struct FitRowOptions {
  /// Rows whose result nobody checked (verified = no: a framework's own kernels timed by
  /// calibrate/pytorch/, whose outputs the scripts do not compare with a reference) join the
  /// fits too; the notes say how many.
  bool include_unverified = false;
};

/// Runs every fit that has rows. Throws Infeasible when a fit cannot be made, or when no
/// row can be fitted at all.
ProfileFit fit_profile(const RawMeasurements& raw, const hw::HardwareProfile& base,
                       const FitRowOptions& options = {});

}  // namespace trainsim::calibrate
