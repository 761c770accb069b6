#include "calibrate/fit_gemm.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "models/errors.hpp"
#include "sim/compute_model.hpp"

namespace trainsim::calibrate {
namespace {

double squared_error(const std::vector<const RawMeasurement*>& rows,
                     const hw::HardwareProfile& profile) {
  double sum = 0.0;
  for (const RawMeasurement* r : rows) {
    const double e = relative_error(predict_gemm_row(*r, profile).seconds(), r->time.seconds());
    sum += e * e;
  }
  return sum;
}

/// The max_efficiency in [0.02, 1] that minimises the squared relative error: a grid scan
/// (the error is not unimodal where the HBM floor takes over) refined by golden section.
double best_efficiency(const std::vector<const RawMeasurement*>& rows, hw::HardwareProfile& profile,
                       double& error) {
  auto at = [&](double e) {
    profile.gpu.gemm.max_efficiency = e;
    return squared_error(rows, profile);
  };
  constexpr double kLow = 0.02;
  constexpr double kStep = 0.01;
  double best = kLow;
  double best_error = std::numeric_limits<double>::infinity();
  for (double e = kLow; e <= 1.0 + 1e-12; e += kStep) {
    if (const double err = at(std::min(e, 1.0)); err < best_error) {
      best_error = err;
      best = std::min(e, 1.0);
    }
  }
  double lo = std::max(kLow, best - kStep);
  double hi = std::min(1.0, best + kStep);
  const double ratio = (std::sqrt(5.0) - 1.0) / 2.0;
  for (int i = 0; i < 60; ++i) {
    const double a = hi - ratio * (hi - lo);
    const double b = lo + ratio * (hi - lo);
    if (at(a) <= at(b)) {
      hi = b;
    } else {
      lo = a;
    }
  }
  const double refined = 0.5 * (lo + hi);
  if (const double err = at(refined); err < best_error) {
    best_error = err;
    best = refined;
  }
  error = best_error;
  return best;
}

}  // namespace

Time predict_gemm_row(const RawMeasurement& row, const hw::HardwareProfile& profile) {
  return sim::estimate_gemm(program::Gemm::of(row.m, row.n, row.k, row.batch, row.dtype), profile)
      .time;
}

FitSummary fit_gemm(const std::vector<const RawMeasurement*>& rows, hw::HardwareProfile& profile) {
  const RowSplit split = split_rows(rows);
  if (split.fit.size() < 2) {
    throw Infeasible(fmt::format("gemm fit: {} fitting rows; need at least two", split.fit.size()));
  }
  // Fitting rows per dtype: cuBLAS reaches a different fraction of each dtype's peak, so each
  // measured dtype gets its own max_efficiency; the tile is shared (one CUTLASS shape family).
  std::map<DType, std::vector<const RawMeasurement*>> by_dtype;
  for (const RawMeasurement* r : split.fit)
    by_dtype[r->dtype].push_back(r);
  for (const auto& [dtype, group] : by_dtype) {
    if (group.size() < 2) {
      throw Infeasible(fmt::format("gemm fit: {} fitting rows of {}; need at least two per dtype",
                                   group.size(), to_string(dtype)));
    }
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> tiles{
      {profile.gpu.gemm.tile_m, profile.gpu.gemm.tile_n}};
  for (const auto& t : kCandidateTiles) {
    if (std::find(tiles.begin(), tiles.end(), t) == tiles.end()) tiles.push_back(t);
  }
  hw::HardwareProfile trial = profile;
  trial.gpu.gemm.max_efficiency_by_dtype.clear();
  double best_error = std::numeric_limits<double>::infinity();
  std::map<DType, double> best_by_dtype;
  for (const auto& [tm, tn] : tiles) {
    trial.gpu.gemm.tile_m = tm;
    trial.gpu.gemm.tile_n = tn;
    double error = 0.0;
    std::map<DType, double> efficiencies;
    for (const auto& [dtype, group] : by_dtype) {
      double dtype_error = 0.0;
      efficiencies[dtype] = best_efficiency(group, trial, dtype_error);
      error += dtype_error;
    }
    if (error < best_error) {
      best_error = error;
      profile.gpu.gemm.tile_m = tm;
      profile.gpu.gemm.tile_n = tn;
      best_by_dtype = efficiencies;
    }
  }
  FitSummary s;
  s.what = "gemm";
  s.fields = {"gpu.gemm.max_efficiency", "gpu.gemm.tile"};
  const bool per_dtype = by_dtype.size() > 1;
  auto& profile_by_dtype = profile.gpu.gemm.max_efficiency_by_dtype;
  if (per_dtype) {
    // The scalar stands for the dtypes not measured: the best single figure over all rows.
    trial.gpu.gemm.tile_m = profile.gpu.gemm.tile_m;
    trial.gpu.gemm.tile_n = profile.gpu.gemm.tile_n;
    double error = 0.0;
    profile.gpu.gemm.max_efficiency = best_efficiency(split.fit, trial, error);
    for (const auto& [dtype, efficiency] : best_by_dtype)
      profile_by_dtype[dtype] = efficiency;
    s.fields.push_back("gpu.gemm.max_efficiency_by_dtype");
  } else {
    profile.gpu.gemm.max_efficiency = best_by_dtype.begin()->second;
    // The measured dtype's figure is the scalar now; a base figure of its own would hide it.
    if (profile_by_dtype.erase(best_by_dtype.begin()->first) > 0)
      s.fields.push_back("gpu.gemm.max_efficiency_by_dtype");
  }

  std::int64_t lo = std::numeric_limits<std::int64_t>::max();
  std::int64_t hi = 0;
  std::vector<std::string> dtypes;
  for (const RawMeasurement* r : rows) {
    lo = std::min({lo, r->m, r->n, r->k});
    hi = std::max({hi, r->m, r->n, r->k});
    const std::string d(to_string(r->dtype));
    if (std::find(dtypes.begin(), dtypes.end(), d) == dtypes.end()) dtypes.push_back(d);
  }
  const auto predict = [&profile](const RawMeasurement& r) {
    return predict_gemm_row(r, profile).seconds();
  };
  s.fitted_rows = split.fit.size();
  s.held_out = held_out_errors(split.held_out, predict);
  s.ranges = fmt::format("m, n, k {} to {}, {}", lo, hi, fmt::join(dtypes, "/"));
  s.values = fmt::format("max_efficiency {:.4f}{}, tile [{}, {}] (of {} candidates)",
                         profile.gpu.gemm.max_efficiency, per_dtype ? " (all dtypes together)" : "",
                         profile.gpu.gemm.tile_m, profile.gpu.gemm.tile_n, tiles.size());
  if (per_dtype) {
    for (const auto& [dtype, group] : by_dtype) {
      FitSummary part;
      part.what = std::string(to_string(dtype));
      part.fitted_rows = group.size();
      std::vector<const RawMeasurement*> held_out;
      for (const RawMeasurement* r : split.held_out) {
        if (r->dtype == dtype) held_out.push_back(r);
      }
      part.held_out = held_out_errors(held_out, predict);
      part.values = fmt::format("max_efficiency {:.4f}", profile_by_dtype.at(dtype));
      s.parts.push_back(std::move(part));
    }
  }
  return s;
}

}  // namespace trainsim::calibrate
