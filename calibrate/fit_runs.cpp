#include "calibrate/fit_runs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "models/build_program.hpp"
#include "models/errors.hpp"
#include "sim/replay.hpp"

namespace trainsim::calibrate {
namespace {

constexpr std::size_t kParameters = 4;
using Point = std::array<double, kParameters>;  // gemm eff, memory eff, launch (us), intra scale

constexpr Point kLow{0.1, 0.1, 0.0, 0.05};
constexpr Point kHigh{1.0, 1.0, 50.0, 5.0};

Point clamp(Point p) {
  for (std::size_t i = 0; i < kParameters; ++i)
    p[i] = std::clamp(p[i], kLow[i], kHigh[i]);
  return p;
}

hw::HardwareProfile apply(const hw::HardwareProfile& base, const Point& p) {
  hw::HardwareProfile h = base;
  h.gpu.gemm.max_efficiency = p[0];
  h.gpu.memory_efficiency = p[1];
  h.gpu.kernel_launch = Time::from_us(p[2]);
  std::vector<hw::EfficiencyCurve::Point> curve;
  for (const auto& q : base.collectives.intra_node_efficiency.points())
    curve.push_back({q.size, std::min(1.0, q.efficiency * p[3])});
  h.collectives.intra_node_efficiency = hw::EfficiencyCurve(curve);
  return h;
}

/// A row whose Program has been recorded, with its measured time.
struct BuiltRun {
  program::Program program;
  double measured = 0.0;  ///< seconds
};

std::vector<double> signed_errors(const std::vector<const BuiltRun*>& runs,
                                  const hw::HardwareProfile& profile) {
  sim::ReplayOptions options;
  options.record_op_timings = false;
  std::vector<double> errors;
  errors.reserve(runs.size());
  for (const BuiltRun* r : runs) {
    const double predicted = sim::replay(r->program, profile, options).iteration_time.seconds();
    errors.push_back(predicted / r->measured - 1.0);
  }
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

double objective(const std::vector<const BuiltRun*>& runs, const hw::HardwareProfile& base,
                 const Point& p) {
  double sum = 0.0;
  for (const double e : signed_errors(runs, apply(base, p)))
    sum += e * e;
  return sum / static_cast<double>(runs.size());
}

/// Nelder–Mead (reflection 1, expansion 2, contraction 1/2, shrink 1/2) on the box, points
/// projected onto it; deterministic. Returns the best point found.
Point nelder_mead(const std::vector<const BuiltRun*>& runs, const hw::HardwareProfile& base,
                  Point start, int max_evaluations, int& evaluations) {
  struct Vertex {
    Point p;
    double f;
  };
  auto eval = [&](const Point& p) {
    ++evaluations;
    return Vertex{clamp(p), objective(runs, base, clamp(p))};
  };
  std::vector<Vertex> simplex{eval(start)};
  for (std::size_t i = 0; i < kParameters; ++i) {
    Point p = start;
    // A step of a fifth of the value (launch: 1 us when it starts at zero) or towards the
    // middle when the value sits at its upper bound.
    const double step = std::max(0.2 * std::abs(p[i]), i == 2 ? 1.0 : 0.02);
    p[i] = p[i] + step > kHigh[i] ? p[i] - step : p[i] + step;
    simplex.push_back(eval(p));
  }
  auto by_value = [](const Vertex& a, const Vertex& b) { return a.f < b.f; };
  while (evaluations < max_evaluations) {
    std::stable_sort(simplex.begin(), simplex.end(), by_value);
    if (simplex.back().f - simplex.front().f <= 1e-7 * std::max(1e-12, simplex.front().f)) break;
    Point centroid{};
    for (std::size_t v = 0; v + 1 < simplex.size(); ++v) {
      for (std::size_t i = 0; i < kParameters; ++i)
        centroid[i] += simplex[v].p[i] / static_cast<double>(kParameters);
    }
    auto along = [&](double t) {
      Point p;
      for (std::size_t i = 0; i < kParameters; ++i)
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
          Point p;
          for (std::size_t i = 0; i < kParameters; ++i)
            p[i] = 0.5 * (simplex.front().p[i] + simplex[v].p[i]);
          simplex[v] = eval(p);
        }
      }
    }
  }
  std::stable_sort(simplex.begin(), simplex.end(), by_value);
  return simplex.front().p;
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

  const Point start = clamp(
      {base.gpu.gemm.max_efficiency, base.gpu.memory_efficiency, base.gpu.kernel_launch.us(), 1.0});
  const Point best = nelder_mead(fitting, base, start, setup.max_evaluations, fit.evaluations);
  fit.profile = apply(base, best);
  fit.intra_node_scale = best[3];
  fit.fitted_fit = summarize(signed_errors(fitting, fit.profile));
  fit.fitted_held_out = summarize(signed_errors(held_out, fit.profile));
  fit.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return fit;
}

}  // namespace trainsim::calibrate
