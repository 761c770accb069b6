#include "sim/analysis/goodput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/special_functions/lambert_w.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

namespace trainsim::sim {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

void require(bool ok, const char* field, double value, const char* valid) {
  if (!ok) throw std::invalid_argument(fmt::format("{} = {}: expected {}", field, value, valid));
}

/// E[a]: expected wall time of a segment of `work_s` seconds and its checkpoint.
double expected_segment(double work_s, const FailureModel& m) {
  const double stretch = work_s + m.checkpoint_s;
  if (m.unplanned_per_s == 0.0) return stretch;
  const double mtti = 1.0 / m.unplanned_per_s;
  return mtti * std::exp(m.restart_s / mtti) * std::expm1(stretch / mtti);
}

void check_run(double work_s, double interval_s) {
  require(std::isfinite(work_s) && work_s >= 0.0, "work", work_s, "a finite time >= 0 s");
  require(std::isfinite(interval_s) && interval_s > 0.0, "checkpoint interval", interval_s,
          "a finite time > 0 s");
}

/// Exponential draws from the top 53 bits of the generator (std::exponential_distribution's
/// algorithm is the library's choice; this one is ours, so a seed means the same runs
/// everywhere).
class Draws {
 public:
  explicit Draws(std::uint64_t seed) : engine_(seed) {}
  /// Infinity for rate 0.
  double exponential(double rate) {
    const double u = static_cast<double>(engine_() >> 11) * 0x1.0p-53;
    return rate == 0.0 ? kInfinity : -std::log1p(-u) / rate;
  }

 private:
  std::mt19937_64 engine_;
};

struct OneRun {
  double wall_s = 0.0;
  std::int64_t unplanned = 0;
  std::int64_t planned = 0;
};

class RunSimulator {
 public:
  RunSimulator(const FailureModel& model, Draws& draws) : m_(model), draws_(draws) {}

  OneRun run(double work_s, double interval_s) {
    OneRun out;
    const double whole = std::floor(work_s / interval_s);
    const double rest = work_s - whole * interval_s;
    segments(out, interval_s, static_cast<std::int64_t>(whole));
    if (rest > 0.0) segments(out, rest, 1);
    // Planned stops over the whole wall time, each stretching it by c_p.
    double wall = out.wall_s;
    for (double at = draws_.exponential(m_.planned_per_s); at < wall;
         at += draws_.exponential(m_.planned_per_s)) {
      wall += m_.planned_stop_s;
      ++out.planned;
    }
    out.wall_s = wall;
    return out;
  }

 private:
  /// `count` segments of `work_s` each, one after the other.
  void segments(OneRun& run, double work_s, std::int64_t count) {
    const double stretch = work_s + m_.checkpoint_s;
    while (count > 0) {
      const double next = draws_.exponential(m_.unplanned_per_s);
      const double fit = std::floor(next / stretch);
      if (fit >= static_cast<double>(count)) {
        run.wall_s += static_cast<double>(count) * stretch;
        return;
      }
      count -= static_cast<std::int64_t>(fit);
      run.wall_s += next;  // the whole segments before it, and the part it throws away
      ++run.unplanned;
      restart(run);
    }
  }

  /// A restart, begun again by each interruption during it.
  void restart(OneRun& run) {
    for (;;) {
      const double next = draws_.exponential(m_.unplanned_per_s);
      if (next >= m_.restart_s) {
        run.wall_s += m_.restart_s;
        return;
      }
      run.wall_s += next;
      ++run.unplanned;
    }
  }

  const FailureModel& m_;
  Draws& draws_;
};

double nearest_rank(const std::vector<double>& sorted, double p) {
  const auto n = static_cast<double>(sorted.size());
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(p * n)));
  return sorted[rank - 1];
}

}  // namespace

void FailureModel::check() const {
  auto rate = [](const char* field, double v) {
    require(std::isfinite(v) && v >= 0.0, field, v, "a finite rate >= 0 per second");
  };
  auto time = [](const char* field, double v) {
    require(std::isfinite(v) && v >= 0.0, field, v, "a finite time >= 0 s");
  };
  rate("unplanned interruption rate", unplanned_per_s);
  rate("planned interruption rate", planned_per_s);
  time("restart time", restart_s);
  time("planned stop time", planned_stop_s);
  time("checkpoint stall", checkpoint_s);
  require(planned_per_s * planned_stop_s < 1.0, "planned stops x their duration",
          planned_per_s * planned_stop_s, "below 1 (planned stops would fill the run)");
}

double FailureModel::mean_time_to_interruption() const {
  return unplanned_per_s == 0.0 ? kInfinity : 1.0 / unplanned_per_s;
}

double young_interval(const FailureModel& model) {
  model.check();
  return std::sqrt(2.0 * model.checkpoint_s * model.mean_time_to_interruption());
}

double daly_interval(const FailureModel& model) {
  model.check();
  const double mtti = model.mean_time_to_interruption();
  const double delta = model.checkpoint_s;
  if (delta >= 2.0 * mtti) return mtti;
  const double r = delta / (2.0 * mtti);
  return std::sqrt(2.0 * delta * mtti) * (1.0 + std::sqrt(r) / 3.0 + r / 9.0) - delta;
}

double optimal_interval(const FailureModel& model) {
  model.check();
  if (model.unplanned_per_s == 0.0) return kInfinity;
  require(model.checkpoint_s > 0.0, "checkpoint stall", model.checkpoint_s,
          "a time > 0 s when interruptions happen (free checkpoints have no optimal interval)");
  const double mtti = model.mean_time_to_interruption();
  // e^{(τ+δ)/M}·(1 − τ/M) = 1; with u = 1 − τ/M: u·e^{−u} = e^{−(1+δ/M)}, so
  // −u = W₀(−e^{−(1+δ/M)}) (the principal branch: u < 1).
  const double z = -std::exp(-(1.0 + model.checkpoint_s / mtti));
  return mtti * (1.0 + boost::math::lambert_w0(z));
}

double expected_wall_time(double work_s, double interval_s, const FailureModel& model) {
  model.check();
  check_run(work_s, interval_s);
  const double whole = std::floor(work_s / interval_s);
  const double rest = work_s - whole * interval_s;
  double wall = whole * expected_segment(interval_s, model);
  if (rest > 0.0) wall += expected_segment(rest, model);
  return wall / (1.0 - model.planned_per_s * model.planned_stop_s);
}

WallTimeShares wall_time_shares(double interval_s, const FailureModel& model) {
  model.check();
  check_run(interval_s, interval_s);
  const double stretch = interval_s + model.checkpoint_s;
  double lost = 0.0, restarts = 0.0;
  if (model.unplanned_per_s > 0.0) {
    const double mtti = 1.0 / model.unplanned_per_s;
    const double failures = std::expm1(stretch / mtti);  // 1/p − 1
    lost = failures * mtti - stretch;
    restarts = failures * mtti * std::expm1(model.restart_s / mtti);
  }
  const double segment = stretch + lost + restarts;  // = expected_segment(interval_s)
  const double running = 1.0 - model.planned_per_s * model.planned_stop_s;
  WallTimeShares shares;
  shares.work = running * interval_s / segment;
  shares.checkpoints = running * model.checkpoint_s / segment;
  shares.lost_work = running * lost / segment;
  shares.restarts = running * restarts / segment;
  shares.planned = 1.0 - running;
  return shares;
}

MonteCarloRuns monte_carlo_runs(double work_s, double interval_s, const FailureModel& model,
                                std::int64_t samples, std::uint64_t seed) {
  model.check();
  check_run(work_s, interval_s);
  require(samples >= 1, "samples", static_cast<double>(samples), "1 or more");
  Draws draws(seed);
  RunSimulator simulator(model, draws);
  MonteCarloRuns out;
  out.wall_s.reserve(static_cast<std::size_t>(samples));
  double sum = 0.0, unplanned = 0.0, planned = 0.0;
  for (std::int64_t i = 0; i < samples; ++i) {
    const OneRun run = simulator.run(work_s, interval_s);
    out.wall_s.push_back(run.wall_s);
    sum += run.wall_s;
    unplanned += static_cast<double>(run.unplanned);
    planned += static_cast<double>(run.planned);
  }
  const auto n = static_cast<double>(samples);
  out.mean = sum / n;
  out.mean_unplanned = unplanned / n;
  out.mean_planned = planned / n;
  std::vector<double> sorted = out.wall_s;
  std::sort(sorted.begin(), sorted.end());
  out.p10 = nearest_rank(sorted, 0.10);
  out.p50 = nearest_rank(sorted, 0.50);
  out.p90 = nearest_rank(sorted, 0.90);
  return out;
}

}  // namespace trainsim::sim
