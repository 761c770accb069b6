#include "calibrate/fit_interference.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "calibrate/fit_gemm.hpp"
#include "models/errors.hpp"

namespace trainsim::calibrate {

FitSummary fit_interference(const std::vector<const RawMeasurement*>& rows,
                            hw::HardwareProfile& profile) {
  const RowSplit split = split_rows(rows);
  if (split.fit.empty()) throw Infeasible("interference fit: no fitting rows");
  std::vector<double> slowdowns;
  for (const RawMeasurement* r : split.fit)
    slowdowns.push_back(r->time / predict_gemm_row(*r, profile) - 1.0);
  profile.compute_slowdown_during_comm = std::max(0.0, median(slowdowns));

  const auto [lo, hi] = std::minmax_element(slowdowns.begin(), slowdowns.end());
  FitSummary s;
  s.what = "interference";
  s.fitted_rows = split.fit.size();
  s.held_out = held_out_errors(split.held_out, [&profile](const RawMeasurement& r) {
    return predict_gemm_row(r, profile).seconds() * (1.0 + profile.compute_slowdown_during_comm);
  });
  s.ranges = fmt::format("{} GEMMs beside a collective, per-row slowdowns {:.3f} to {:.3f}",
                         rows.size(), *lo, *hi);
  s.values =
      fmt::format("compute_slowdown_during_comm {:.4f}", profile.compute_slowdown_during_comm);
  s.fields = {"interference.compute_slowdown_during_comm"};
  return s;
}

}  // namespace trainsim::calibrate
