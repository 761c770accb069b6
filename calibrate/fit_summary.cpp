#include "calibrate/fit_summary.hpp"

#include <cmath>
#include <set>
#include <utility>

#include "reports/error_statistics.hpp"

namespace trainsim::calibrate {

RowSplit split_rows(const std::vector<const RawMeasurement*>& group) {
  RowSplit split;
  for (std::size_t i = 0; i < group.size(); ++i) {
    (i % kHoldoutEvery == kHoldoutEvery - 1 ? split.held_out : split.fit).push_back(group[i]);
  }
  return split;
}

ErrorStats error_stats(std::vector<double> errors) {
  ErrorStats s;
  s.rows = errors.size();
  s.median = reports::median(errors);
  s.p90 = reports::nearest_rank(std::move(errors), 0.9);
  return s;
}

ErrorStats held_out_errors(const std::vector<const RawMeasurement*>& rows,
                           const std::function<double(const RawMeasurement&)>& predict) {
  std::vector<double> errors;
  errors.reserve(rows.size());
  for (const RawMeasurement* r : rows)
    errors.push_back(relative_error(predict(*r), r->time.seconds()));
  return error_stats(std::move(errors));
}

void record_predictions(FitSummary& s, const std::vector<const RawMeasurement*>& rows,
                        const RowSplit& split,
                        const std::function<double(const RawMeasurement&)>& predict) {
  s.fitted_rows = split.fit.size();
  s.held_out = held_out_errors(split.held_out, predict);
  const std::set<const RawMeasurement*> held(split.held_out.begin(), split.held_out.end());
  for (const RawMeasurement* r : rows)
    s.residuals.push_back({r, predict(*r), held.count(r) > 0});
}

double median(std::vector<double> values) {
  return reports::median(std::move(values));
}

double relative_error(double predicted, double measured) {
  return std::abs(predicted - measured) / measured;
}

}  // namespace trainsim::calibrate
