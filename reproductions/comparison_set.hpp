#pragma once
// A named set of comparisons (one paper's table, one split of a measured data set) and the
// statistics of its signed errors: n, mean, median, p90 and max |error|, and the signed bias
// (the mean signed error), each bound by the set's tolerance (the suite fails beyond it) and
// aim (the target; above it the set is marked). Issue 16: systematic optimism shows as a
// bias, which a table of per-figure errors hides.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "documents/report_table.hpp"
#include "reproductions/comparison.hpp"

namespace trainsim::reproductions {

/// What a bound limits: a statistic of the set's relative errors (predicted − published) /
/// published.
enum class SetStatistic {
  mean_abs,    ///< mean |error|
  median_abs,  ///< median |error| (the mean of the middle two for an even count)
  p90_abs,     ///< nearest-rank 90th percentile of |error|
  max_abs,     ///< max |error|
  abs_bias,    ///< |mean signed error|
};

/// As printed: "mean", "median", "p90", "max", "|bias|".
std::string_view to_string(SetStatistic statistic);

/// As a JSON key: "mean_abs_error", "median_abs_error", "p90_abs_error", "max_abs_error",
/// "abs_bias".
std::string_view json_key(SetStatistic statistic);

/// statistic ≤ limit; limits are relative (0.05 = 5 %).
struct SetBound {
  SetStatistic statistic;
  double limit;
};

/// A set and the bounds its statistics are held to, stated before any run.
struct ComparisonSet {
  std::string name;  ///< "korthikanti2022 Table 4"; Comparison::set names it
  std::string what;  ///< what its rows are, in a line
  /// The reproductions its rows come from: a run without all of them shows the set as
  /// partial (statistics over the rows it has) and does not judge it.
  std::vector<std::string> reproductions;
  std::vector<SetBound> tolerance;  ///< the regression guard: the suite fails beyond any
  std::vector<SetBound> aim;        ///< the target: a set above it is marked, not failed
};

/// Statistics of one set's rows.
struct SetStats {
  std::size_t rows = 0;      ///< rows counted
  std::size_t left_out = 0;  ///< rows left out (Comparison::left_out): not counted
  double mean_abs = 0.0;
  double median_abs = 0.0;
  double p90_abs = 0.0;
  double max_abs = 0.0;
  double bias = 0.0;  ///< mean signed error

  /// The statistic's value (abs_bias: |bias|).
  double value(SetStatistic statistic) const;
};

/// Statistics of the rows' signed errors, leaving out rows not reproduced and rows whose setup
/// their map chose (counted in `left_out`); a non-finite error (a figure we could not compute)
/// makes every statistic NaN, which no bound holds. No rows: zeros.
SetStats set_stats(std::span<const Comparison* const> rows);

/// A set evaluated over the reproductions of one run.
struct SetResult {
  const ComparisonSet* set = nullptr;
  SetStats stats;
  /// Its reproductions that did not run: then the statistics cover the rows that did, and the
  /// set is not judged.
  std::vector<std::string> missing;

  bool judged() const { return missing.empty(); }
  /// The bounds of `bounds` whose statistic exceeds them (a NaN statistic exceeds any).
  std::vector<SetBound> exceeded(const std::vector<SetBound>& bounds) const;
  /// Judged and outside its tolerance.
  bool failed() const;
  /// Judged and above its aim.
  bool above_aim() const;
  /// "ok", "ok (> aim: median, p90)", "FAIL (max, |bias|)" or "partial (without NAME: not
  /// judged)".
  std::string verdict() const;
};

/// A relative error as a percentage, "12.3 %" and signed "+12.3 %"; "-" when not finite.
std::string percent_text(double relative);
std::string signed_percent_text(double relative);

/// "max 5 %, |bias| 2 %".
std::string format_bounds(const std::vector<SetBound>& bounds);

/// Number of judged sets outside their tolerance.
int count_set_failures(std::span<const SetResult> results);

/// The summary table: set, n (+ rows left out), mean, median, p90 and max |error|,
/// bias, tolerance, aim, verdict; with the title above it.
std::string format_set_summary(const std::string& title, std::span<const SetResult> results);

/// The same as a report table (`id`: its block and CSV stem).
documents::ReportTable set_summary_table(const std::string& id, std::span<const SetResult> results);

/// "4 sets, none outside tolerance, 3 above aim (1 partial)" or "4 sets, 1 OUTSIDE
/// TOLERANCE, 3 above aim" (a set outside its tolerance is above its aim too).
std::string set_verdict_line(std::span<const SetResult> results);

/// One set as ordered JSON: name, what, reproductions, judged, missing_reproductions, rows,
/// left_out, mean_abs_error, median_abs_error, p90_abs_error, max_abs_error, bias,
/// tolerance and aim (objects statistic key → limit), outside_tolerance and above_aim (lists
/// of statistic keys), verdict. NaN statistics are null.
nlohmann::ordered_json set_json(const SetResult& result);

}  // namespace trainsim::reproductions
