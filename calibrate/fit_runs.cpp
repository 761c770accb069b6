#include "calibrate/fit_runs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "models/build_program.hpp"
#include "models/errors.hpp"
#include "models/parallel_for.hpp"
#include "sim/replay.hpp"

namespace trainsim::calibrate {
namespace {


/// A row whose Program has been recorded, with its measured time.
struct BuiltRun {
  program::Program program;
  double measured = 0.0;  ///< seconds
};

std::vector<double> signed_errors(const std::vector<const BuiltRun*>& runs,
                                  const hw::HardwareProfile& profile) {
  sim::ReplayOptions options;
  options.record_op_timings = false;
  std::vector<double> errors(runs.size());
  // Rows are independent replays: both cores; each error lands in its own slot.
  for_each_in_parallel(runs.size(), [&](std::size_t i) {
    const double predicted =
        sim::replay(runs[i]->program, profile, options).iteration_time.seconds();
    errors[i] = predicted / runs[i]->measured - 1.0;
  });
  return errors;
}

RunErrors summarize(const std::vector<double>& signed_values) {
  RunErrors e;
  e.rows = signed_values.size();
  // error_stats orders any values: its median and nearest-rank p90 serve the signed ones too.
  const ErrorStats signed_stats = error_stats(signed_values);
  e.median_signed = signed_stats.median;
  e.p90_signed = signed_stats.p90;
  std::vector<double> absolute;
  for (const double v : signed_values) {
    absolute.push_back(std::abs(v));
    e.bias += v / static_cast<double>(signed_values.size());
  }
  e.absolute = error_stats(absolute);
  return e;
}

/// The search runs in the unit cube: coordinate i in [0, 1] maps linearly onto parameter i's
/// bounds, so one step size suits figures in microseconds and fractions alike.
using Point = std::vector<double>;

hw::HardwareProfile apply(const hw::HardwareProfile& base, const std::vector<RunParameter>& params,
                          const Point& unit) {
  hw::HardwareProfile h = base;
  for (std::size_t i = 0; i < params.size(); ++i)
    params[i].set(h, params[i].low + unit[i] * (params[i].high - params[i].low));
  return h;
}

Point clamp(Point p) {
  for (double& v : p)
    v = std::clamp(v, 0.0, 1.0);
  return p;
}

/// Mean |relative error| over the fitting rows: the median-like loss the targets are stated in,
/// and one a few rows the model cannot explain do not drag the whole fit towards.
double objective(const std::vector<const BuiltRun*>& runs, const hw::HardwareProfile& base,
                 const std::vector<RunParameter>& params, const Point& p) {
  double sum = 0.0;
  for (const double e : signed_errors(runs, apply(base, params, p)))
    sum += std::abs(e);
  return sum / static_cast<double>(runs.size());
}

/// The objective evaluations spent and allowed, told to the progress listener as they go.
struct EvaluationBudget {
  int& used;
  int allowed;
  const sim::Progress& progress;

  bool left() const { return used < allowed; }
  void spend() {
    ++used;
    if (progress) {
      progress("fit", static_cast<std::size_t>(std::min(used, allowed)),
               static_cast<std::size_t>(allowed));
    }
  }
};

/// Nelder–Mead (reflection 1, expansion 2, contraction 1/2, shrink 1/2) in the unit cube,
/// points projected onto it; deterministic. Returns the best point found.
Point nelder_mead(const std::vector<const BuiltRun*>& runs, const hw::HardwareProfile& base,
                  const std::vector<RunParameter>& params, Point start, EvaluationBudget& budget) {
  struct Vertex {
    Point p;
    double f;
  };
  const std::size_t n = params.size();
  auto eval = [&](const Point& p) {
    budget.spend();
    return Vertex{clamp(p), objective(runs, base, params, clamp(p))};
  };
  std::vector<Vertex> simplex{eval(start)};
  for (std::size_t i = 0; i < n; ++i) {
    Point p = start;
    // A tenth of the range, towards the middle from a bound.
    p[i] = p[i] + 0.1 > 1.0 ? p[i] - 0.1 : p[i] + 0.1;
    simplex.push_back(eval(p));
  }
  auto by_value = [](const Vertex& a, const Vertex& b) { return a.f < b.f; };
  while (budget.left()) {
    std::stable_sort(simplex.begin(), simplex.end(), by_value);
    if (simplex.back().f - simplex.front().f <= 1e-7 * std::max(1e-12, simplex.front().f)) break;
    Point centroid(n, 0.0);
    for (std::size_t v = 0; v + 1 < simplex.size(); ++v) {
      for (std::size_t i = 0; i < n; ++i)
        centroid[i] += simplex[v].p[i] / static_cast<double>(n);
    }
    auto along = [&](double t) {
      Point p(n);
      for (std::size_t i = 0; i < n; ++i)
        p[i] = centroid[i] + t * (simplex.back().p[i] - centroid[i]);
      return p;
    };
    const Vertex reflected = eval(along(-1.0));
    if (reflected.f < simplex.front().f) {
      const Vertex expanded = eval(along(-2.0));
      simplex.back() = expanded.f < reflected.f ? expanded : reflected;
    } else if (reflected.f < simplex[simplex.size() - 2].f) {
      simplex.back() = reflected;
    } else {
      const Vertex contracted = eval(along(reflected.f < simplex.back().f ? -0.5 : 0.5));
      if (contracted.f < std::min(reflected.f, simplex.back().f)) {
        simplex.back() = contracted;
      } else {
        for (std::size_t v = 1; v < simplex.size(); ++v) {
          Point p(n);
          for (std::size_t i = 0; i < n; ++i)
            p[i] = 0.5 * (simplex.front().p[i] + simplex[v].p[i]);
          simplex[v] = eval(p);
        }
      }
    }
  }
  std::stable_sort(simplex.begin(), simplex.end(), by_value);
  return simplex.front().p;
}

/// d(signed error of each row) / d(parameter), in the parameter's units, by a forward step of
/// 1 % of its range (backward at the upper bound).
std::vector<std::vector<double>> jacobian(const std::vector<const BuiltRun*>& runs,
                                          const hw::HardwareProfile& base,
                                          const std::vector<RunParameter>& params,
                                          const Point& at) {
  const std::vector<double> e0 = signed_errors(runs, apply(base, params, at));
  std::vector<std::vector<double>> j(runs.size(), std::vector<double>(params.size(), 0.0));
  for (std::size_t c = 0; c < params.size(); ++c) {
    Point p = at;
    const double step = p[c] + 0.01 > 1.0 ? -0.01 : 0.01;
    p[c] += step;
    const std::vector<double> e = signed_errors(runs, apply(base, params, p));
    const double dx = step * (params[c].high - params[c].low);
    for (std::size_t r = 0; r < runs.size(); ++r)
      j[r][c] = (e[r] - e0[r]) / dx;
  }
  return j;
}

}  // namespace

RunFit fit_runs(const inputs::RunMeasurements& runs, const hw::HardwareProfile& base,
                double holdout, const RunSetup& setup) {
  if (!(holdout >= 0.0 && holdout < 1.0)) {
    throw std::invalid_argument(
        fmt::format("--holdout: expected a fraction in [0, 1), got {}", holdout));
  }
  const auto started = std::chrono::steady_clock::now();
  RunFit fit;
  std::vector<BuiltRun> built;
  built.reserve(runs.rows.size());
  std::vector<bool> held;
  for (std::size_t i = 0; i < runs.rows.size(); ++i) {
    const inputs::RunMeasurement& r = runs.rows[i];
    try {
      built.push_back({build_program(inputs::measured_run_scenario(r, setup.assumptions),
                                     ProgramScope::representative),
                       r.time.seconds()});
      held.push_back(inputs::run_held_out(i, holdout));
    } catch (const Infeasible& e) {  // a plan the executor rejects (divisibility, ...)
      ++fit.skipped_rows;
      if (fit.skipped.size() < 5)
        fit.skipped.push_back(fmt::format("line {}: {}", r.line, e.what()));
    }
  }
  std::vector<const BuiltRun*> fitting;
  std::vector<const BuiltRun*> held_out;
  for (std::size_t i = 0; i < built.size(); ++i)
    (held[i] ? held_out : fitting).push_back(&built[i]);
  if (fitting.empty()) {
    throw Infeasible(fmt::format("{}: no row could be built for fitting ({} skipped)",
                                 runs.file.string(), fit.skipped_rows));
  }
  fit.fitted_rows = fitting.size();
  fit.base_fit = summarize(signed_errors(fitting, base));
  fit.base_held_out = summarize(signed_errors(held_out, base));

  const std::vector<RunParameter> params = whole_run_parameters(base);
  Point start(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    start[i] = (params[i].get(base) - params[i].low) / (params[i].high - params[i].low);
  }
  start = clamp(start);
  // Nelder–Mead collapses onto a face of the cube or a valley's floor before the budget is
  // spent; restarted from its best point with a fresh simplex it moves on, until a restart
  // gains nothing (the usual remedy, deterministic).
  Point best = start;
  double best_f = std::numeric_limits<double>::infinity();
  EvaluationBudget budget{fit.evaluations, setup.max_evaluations, setup.progress};
  while (budget.left()) {
    const Point p = nelder_mead(fitting, base, params, best, budget);
    const double f = objective(fitting, base, params, p);
    budget.spend();
    if (!(f < best_f * (1.0 - 1e-6))) {
      if (f < best_f) best = p;
      break;
    }
    best = p;
    best_f = f;
  }
  fit.profile = apply(base, params, best);
  for (std::size_t i = 0; i < params.size(); ++i) {
    const double value = params[i].low + best[i] * (params[i].high - params[i].low);
    fit.parameters.push_back(FittedParameter{params[i], params[i].get(base), value,
                                             best[i] <= 1e-6 || best[i] >= 1.0 - 1e-6});
  }
  std::vector<double> ranges;
  for (const RunParameter& q : params)
    ranges.push_back(q.high - q.low);
  fit.confounded = confounded_parameters(jacobian(fitting, base, params, best), ranges);
  fit.fitted_fit = summarize(signed_errors(fitting, fit.profile));
  fit.fitted_held_out = summarize(signed_errors(held_out, fit.profile));
  fit.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return fit;
}

}  // namespace trainsim::calibrate
