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

namespace {

using ByDtype = std::map<DType, std::vector<const RawMeasurement*>>;

/// The x in [lo, hi] minimising f, by golden section (one new evaluation per step); f is
/// assumed unimodal there.
template <class F>
double golden_minimum(F&& f, double lo, double hi, int steps) {
  const double ratio = (std::sqrt(5.0) - 1.0) / 2.0;
  double a = hi - ratio * (hi - lo);
  double b = lo + ratio * (hi - lo);
  double fa = f(a);
  double fb = f(b);
  for (int i = 0; i < steps; ++i) {
    if (fa <= fb) {
      hi = b;
      b = a;
      fb = fa;
      a = hi - ratio * (hi - lo);
      fa = f(a);
    } else {
      lo = a;
      a = b;
      fa = fb;
      b = lo + ratio * (hi - lo);
      fb = f(b);
    }
  }
  return fa <= fb ? a : b;
}

/// Sets the per-dtype figures (several dtypes) or the scalar (one) from `efficiencies`; with
/// several, the scalar is the best single figure over all rows, for the dtypes not measured.
void set_efficiencies(const std::map<DType, double>& efficiencies,
                      const std::vector<const RawMeasurement*>& fit_rows,
                      hw::HardwareProfile& trial, hw::HardwareProfile& profile,
                      std::vector<std::string>& fields) {
  auto& profile_by_dtype = profile.gpu.gemm.max_efficiency_by_dtype;
  if (efficiencies.size() > 1) {
    double error = 0.0;
    trial.gpu.gemm.max_efficiency_by_dtype.clear();
    profile.gpu.gemm.max_efficiency = best_efficiency(fit_rows, trial, error);
    for (const auto& [dtype, efficiency] : efficiencies)
      profile_by_dtype[dtype] = efficiency;
    fields.push_back("gpu.gemm.max_efficiency_by_dtype");
  } else {
    profile.gpu.gemm.max_efficiency = efficiencies.begin()->second;
    // The measured dtype's figure is the scalar now; a base figure of its own would hide it.
    if (profile_by_dtype.erase(efficiencies.begin()->first) > 0)
      fields.push_back("gpu.gemm.max_efficiency_by_dtype");
  }
}

/// The summary's ranges, held-out errors and per-dtype parts, for both models.
void summarise(FitSummary& s, const std::vector<const RawMeasurement*>& rows, const RowSplit& split,
               const ByDtype& by_dtype, const hw::HardwareProfile& profile) {
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
  record_predictions(s, rows, split, predict);
  s.ranges = fmt::format("m, n, k {} to {}, {}", lo, hi, fmt::join(dtypes, "/"));
  if (by_dtype.size() < 2) return;
  for (const auto& [dtype, group] : by_dtype) {
    FitSummary part;
    part.what = std::string(to_string(dtype));
    part.fitted_rows = group.size();
    std::vector<const RawMeasurement*> held_out;
    for (const RawMeasurement* r : split.held_out) {
      if (r->dtype == dtype) held_out.push_back(r);
    }
    part.held_out = held_out_errors(held_out, predict);
    part.values =
        fmt::format("max_efficiency {:.4f}", profile.gpu.gemm.max_efficiency_by_dtype.at(dtype));
    s.parts.push_back(std::move(part));
  }
}

/// One tile for every shape (no candidate tiles): per candidate tile (the base's first, then
/// kCandidateTiles) each dtype's best max_efficiency; the tile with the least summed error.
FitSummary fit_single_tile(const std::vector<const RawMeasurement*>& rows, const RowSplit& split,
                           const ByDtype& by_dtype, hw::HardwareProfile& profile) {
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
  trial.gpu.gemm.tile_m = profile.gpu.gemm.tile_m;
  trial.gpu.gemm.tile_n = profile.gpu.gemm.tile_n;
  set_efficiencies(best_by_dtype, split.fit, trial, profile, s.fields);
  summarise(s, rows, split, by_dtype, profile);
  s.values = fmt::format("max_efficiency {:.4f}{}, tile [{}, {}] (of {} candidates)",
                         profile.gpu.gemm.max_efficiency,
                         by_dtype.size() > 1 ? " (all dtypes together)" : "",
                         profile.gpu.gemm.tile_m, profile.gpu.gemm.tile_n, tiles.size());
  return s;
}

/// cuBLAS's heuristic (candidate tiles): each dtype's max_efficiency, the operand bandwidth
/// and the per-CTA overhead. The candidate tiles and max_split_k are the library's kernel set,
/// which times alone do not reveal: they stay the base's. Coordinate descent, three rounds of
/// a golden section on the overhead (0 to 1024 k) and one on log2 of the bandwidth (the base's
/// / 8 to x 8), each trial refitting every dtype's max_efficiency by a golden section within
/// ±0.1 of its last value (the error is unimodal there; a full scan at the base's figures
/// starts it, as the HBM floor flattens the error far from the optimum).
FitSummary fit_heuristic(const std::vector<const RawMeasurement*>& rows, const RowSplit& split,
                         const ByDtype& by_dtype, hw::HardwareProfile& profile) {
  hw::HardwareProfile trial = profile;
  trial.gpu.gemm.max_efficiency_by_dtype.clear();
  std::map<DType, double> efficiencies;
  for (const auto& [dtype, group] : by_dtype) {
    double error = 0.0;
    efficiencies[dtype] = best_efficiency(group, trial, error);
  }
  const auto refit = [&](std::map<DType, double>& found) {
    double total = 0.0;
    for (const auto& entry : by_dtype) {
      const DType dtype = entry.first;
      const auto& group = entry.second;  // a reference the lambda can capture (not a binding)
      const double centre = found.at(dtype);
      const auto at = [&](double e) {
        trial.gpu.gemm.max_efficiency = e;
        return squared_error(group, trial);
      };
      const double e =
          golden_minimum(at, std::max(0.02, centre - 0.1), std::min(1.0, centre + 0.1), 30);
      found[dtype] = e;
      total += at(e);
    }
    return total;
  };
  const double base_log = std::log2(profile.gpu.gemm.operand_bandwidth.gb_per_s());
  for (int round = 0; round < 3; ++round) {
    trial.gpu.gemm.cta_overhead_k = golden_minimum(
        [&](double k0) {
          trial.gpu.gemm.cta_overhead_k = k0;
          std::map<DType, double> found = efficiencies;
          return refit(found);
        },
        0.0, 1024.0, 26);
    const double log_bandwidth = golden_minimum(
        [&](double log_gb_per_s) {
          trial.gpu.gemm.operand_bandwidth = Bandwidth::gb_per_s(std::exp2(log_gb_per_s));
          std::map<DType, double> found = efficiencies;
          return refit(found);
        },
        base_log - 3.0, base_log + 3.0, 26);
    trial.gpu.gemm.operand_bandwidth = Bandwidth::gb_per_s(std::exp2(log_bandwidth));
    refit(efficiencies);
  }
  profile.gpu.gemm.operand_bandwidth = trial.gpu.gemm.operand_bandwidth;
  profile.gpu.gemm.cta_overhead_k = trial.gpu.gemm.cta_overhead_k;
  FitSummary s;
  s.what = "gemm";
  s.fields = {"gpu.gemm.max_efficiency", "gpu.gemm.operand_bandwidth", "gpu.gemm.cta_overhead_k"};
  set_efficiencies(efficiencies, split.fit, trial, profile, s.fields);
  summarise(s, rows, split, by_dtype, profile);
  s.values = fmt::format(
      "max_efficiency {:.4f}{}, operand_bandwidth {:.4g} TB/s, cta_overhead_k {:.1f} (the base's "
      "{} candidate tiles, split-K up to {})",
      profile.gpu.gemm.max_efficiency, by_dtype.size() > 1 ? " (all dtypes together)" : "",
      profile.gpu.gemm.operand_bandwidth.gb_per_s() / 1000.0, profile.gpu.gemm.cta_overhead_k,
      profile.gpu.gemm.candidate_tiles.size(), profile.gpu.gemm.max_split_k);
  return s;
}

}  // namespace

FitSummary fit_gemm(const std::vector<const RawMeasurement*>& rows, hw::HardwareProfile& profile) {
  const RowSplit split = split_rows(rows);
  if (split.fit.size() < 2) {
    throw Infeasible(fmt::format("gemm fit: {} fitting rows; need at least two", split.fit.size()));
  }
  // Fitting rows per dtype: cuBLAS reaches a different fraction of each dtype's peak, so each
  // measured dtype gets its own max_efficiency; the tiles are shared (one CUTLASS family).
  ByDtype by_dtype;
  for (const RawMeasurement* r : split.fit)
    by_dtype[r->dtype].push_back(r);
  for (const auto& [dtype, group] : by_dtype) {
    if (group.size() < 2) {
      throw Infeasible(fmt::format("gemm fit: {} fitting rows of {}; need at least two per dtype",
                                   group.size(), to_string(dtype)));
    }
  }
  return profile.gpu.gemm.candidate_tiles.empty() ? fit_single_tile(rows, split, by_dtype, profile)
                                                  : fit_heuristic(rows, split, by_dtype, profile);
}

}  // namespace trainsim::calibrate
