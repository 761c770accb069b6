#pragma once
// The few efficiency figures that microbenchmarks would give, fitted instead from measured
// whole-run iteration times (vTrain's single-node A100 set): each row's configuration is
// built as a scenario, its Program recorded once, and replayed on trial profiles while a
// bounded Nelder–Mead search minimises the squared relative error on the fitting rows.

#include <cstddef>
#include <string>
#include <vector>

#include "calibrate/fit_summary.hpp"
#include "calibrate/run_parameters.hpp"
#include "inputs/run_measurements.hpp"
#include "sim/hardware_profile.hpp"
#include "sim/progress.hpp"

namespace trainsim::calibrate {

/// What the runs are assumed to be (inputs::measured_run_scenario builds each row's scenario)
/// and how long the search may run.
struct RunSetup {
  inputs::RunAssumptions assumptions;
  /// Objective evaluations the search may spend (each replays every fitting row once).
  int max_evaluations = 160;
  /// Told ("fit", evaluations spent, max_evaluations) after each evaluation; may be empty.
  sim::Progress progress;
};

/// Signed (predicted / measured - 1) and absolute relative errors over a set of rows.
struct RunErrors {
  std::size_t rows = 0;
  double median_signed = 0.0;
  double p90_signed = 0.0;  ///< nearest-rank 90th percentile of the signed errors
  double bias = 0.0;        ///< mean signed error (negative: predicted too fast)
  ErrorStats absolute;
};

/// One fitted figure (run_parameters.hpp): the base profile's value and the fitted one, in
/// the parameter's unit; `at_bound` when the search ended on a bound (the rows wanted more).
struct FittedParameter {
  RunParameter parameter;
  double base = 0.0;
  double fitted = 0.0;
  bool at_bound = false;
};

/// The figures of whole_run_parameters fitted to the rows (mean |relative error|).
struct RunFit {
  hw::HardwareProfile profile;  ///< the base with the fitted figures replaced
  std::vector<FittedParameter> parameters;
  /// Parameters the fitting rows do not determine (b == a) or cannot separate (|correlation|
  /// > 0.95 at the optimum): confounded_parameters.
  std::vector<Confounded> confounded;
  std::size_t fitted_rows = 0;
  std::size_t skipped_rows = 0;      ///< configurations the executor cannot build
  std::vector<std::string> skipped;  ///< "line N: why", for the first few
  int evaluations = 0;               ///< objective evaluations (one replay of every fitting row)
  RunErrors base_fit;                ///< the base profile on the fitting rows
  RunErrors base_held_out;           ///< the base profile on the held-out rows
  RunErrors fitted_fit;
  RunErrors fitted_held_out;
  double seconds = 0.0;  ///< wall time of the whole fit
};

/// Fits whole_run_parameters(base) into a copy of `base`; row i is held out when
/// inputs::run_held_out(i, holdout). `holdout` in [0, 1). Throws Infeasible when no row can be
/// built, or std::invalid_argument for a holdout outside [0, 1).
RunFit fit_runs(const inputs::RunMeasurements& runs, const hw::HardwareProfile& base,
                double holdout, const RunSetup& setup = {});

}  // namespace trainsim::calibrate
