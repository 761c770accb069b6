#include "calibrate/fit_summary.hpp"

#include <algorithm>
#include <cmath>

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
  if (errors.empty()) return s;
  std::sort(errors.begin(), errors.end());
  const std::size_t n = errors.size();
  s.median = median(errors);
  // Nearest rank: the smallest value with at least 90 % of the rows at or below it.
  const auto rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(n)));
  s.p90 = errors[std::max<std::size_t>(rank, 1) - 1];
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

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double relative_error(double predicted, double measured) {
  return std::abs(predicted - measured) / measured;
}

}  // namespace trainsim::calibrate
