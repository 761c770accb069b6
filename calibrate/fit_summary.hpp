#pragma once
// What every fit reports: the rows it used and held out, the relative error on the held-out
// rows, the ranges the measurements covered and the profile fields it replaced; and the one
// rule that splits rows into fitted and held out.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "calibrate/raw_measurements.hpp"

namespace trainsim::calibrate {

/// Every kHoldoutEvery-th row of a fit group, in file order (positions 4, 9, 14, ...), is held
/// out: deterministic, and spread over the sweep since the benchmarks write sweeps in order.
inline constexpr std::size_t kHoldoutEvery = 5;

/// Rows of one fit group split by the holdout rule.
struct RowSplit {
  std::vector<const RawMeasurement*> fit;
  std::vector<const RawMeasurement*> held_out;
};
RowSplit split_rows(const std::vector<const RawMeasurement*>& group);

/// Median and 90th percentile (nearest rank) of errors, usually relative ones |predicted -
/// measured| / measured; zero rows give zeros.
struct ErrorStats {
  std::size_t rows = 0;
  double median = 0.0;
  double p90 = 0.0;
};
ErrorStats error_stats(std::vector<double> errors);

/// error_stats of `predict(row)` against each row's measured time (both in seconds).
ErrorStats held_out_errors(const std::vector<const RawMeasurement*>& rows,
                           const std::function<double(const RawMeasurement&)>& predict);

/// One row's prediction by the fitted profile: what `fit --residuals` writes.
struct Residual {
  const RawMeasurement* row = nullptr;  ///< into the fitted RawMeasurements
  double predicted_s = 0.0;
  bool held_out = false;
};

/// The report of one fit.
struct FitSummary {
  std::string what;  ///< "gemm", "memory", "collectives intra_node", ...
  std::size_t fitted_rows = 0;
  ErrorStats held_out;              ///< on the held-out rows
  std::string ranges;               ///< what the measurements covered, for provenance
  std::string values;               ///< the fitted figures, as written to the profile
  std::vector<std::string> fields;  ///< profile field paths replaced
  std::string holdout_rule = "every 5th row held out";
  /// Figures fitted per subset of the rows (one group size, one dtype): their own values and
  /// held-out errors, on the held-out rows of the subset; no fields of their own.
  std::vector<FitSummary> parts;
  /// Every row's prediction (fitted and held out), in file order; fits that keep none leave it
  /// empty.
  std::vector<Residual> residuals;
};

/// Fills `s`'s fitted row count, its held-out errors and every row's residual from `predict`
/// (seconds), `rows` in file order.
void record_predictions(FitSummary& s, const std::vector<const RawMeasurement*>& rows,
                        const RowSplit& split,
                        const std::function<double(const RawMeasurement&)>& predict);

/// Median of `values` (the mean of the middle two for an even count); 0 for none.
double median(std::vector<double> values);

/// |predicted - measured| / measured.
double relative_error(double predicted, double measured);

}  // namespace trainsim::calibrate
