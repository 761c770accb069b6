#pragma once
// Order statistics of a list of errors, shared by every place that summarises them (the
// comparison sets of `trainsim validate`, the held-out errors of the calibration fits), so a
// median or a 90th percentile means the same thing wherever it is printed.

#include <vector>

namespace trainsim::reports {

/// Median of `values` (the mean of the middle two for an even count); 0 for none.
double median(std::vector<double> values);

/// Nearest-rank percentile: the smallest value with at least `fraction` of the values at or
/// below it (rank ceil(fraction x n), at least 1); `fraction` in (0, 1]; 0 for none.
double nearest_rank(std::vector<double> values, double fraction);

}  // namespace trainsim::reports
