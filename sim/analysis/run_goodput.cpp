#include "sim/analysis/run_goodput.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace trainsim::sim {

namespace {

/// Everything but the interval.
RunGoodput base(const ModelSpec& model, std::int64_t gpus, std::int64_t gpus_per_node,
                Time iteration, const hw::ReliabilitySpec& reliability) {
  if (gpus < 1) throw std::invalid_argument("run_goodput: gpus must be >= 1");
  if (iteration <= Time::zero()) throw std::invalid_argument("run_goodput: iteration time is 0");
  RunGoodput g;
  g.gpus = gpus;
  g.iteration = iteration;
  g.checkpoint = checkpoint_size(model, gpus, gpus_per_node);
  g.times = checkpoint_times(g.checkpoint, reliability.checkpoint);
  const auto n = static_cast<double>(gpus);
  for (const hw::InterruptionCause& c : reliability.unplanned)
    g.causes.push_back({c.name, c.rate.per_gpu_day() * n});
  g.planned_per_day = reliability.planned.per_gpu_day() * n;
  g.failures.unplanned_per_s = reliability.unplanned_total().per_gpu_second() * n;
  g.failures.planned_per_s = reliability.planned.per_gpu_second() * n;
  g.failures.restart_s = (reliability.detect + reliability.restart + g.times.load).seconds();
  g.failures.checkpoint_s = g.times.stall.seconds();
  g.failures.planned_stop_s = (g.times.write + reliability.restart + g.times.load)
                                  .seconds();  // a planned stop saves in full
  g.mtti_s = g.failures.mean_time_to_interruption();
  g.young_s = young_interval(g.failures);
  g.daly_s = daly_interval(g.failures);
  g.optimal_s = g.failures.unplanned_per_s > 0.0 && g.failures.checkpoint_s > 0.0
                    ? optimal_interval(g.failures)
                    : std::numeric_limits<double>::infinity();
  return g;
}

/// The stall of a checkpoint every `interval_s`: an asynchronous save whose write outlasts the
/// interval makes the next one wait for it.
double stall_at(const RunGoodput& g, const hw::ReliabilitySpec& reliability, double interval_s) {
  const double copy = g.times.stall.seconds();
  if (!reliability.checkpoint.asynchronous) return copy;
  return copy + std::max(0.0, g.times.write.seconds() - copy - interval_s);
}

void settle(RunGoodput& g, const hw::ReliabilitySpec& reliability, std::int64_t steps) {
  g.interval_steps = steps;
  g.interval_s = static_cast<double>(steps) * g.iteration.seconds();
  g.failures.checkpoint_s = stall_at(g, reliability, g.interval_s);
  g.write_wait_s = g.failures.checkpoint_s - g.times.stall.seconds();
  g.effective = g.interval_s / expected_wall_time(g.interval_s, g.interval_s, g.failures);
}

}  // namespace

RunGoodput run_goodput_at(const ModelSpec& model, std::int64_t gpus, std::int64_t gpus_per_node,
                          Time iteration, const hw::ReliabilitySpec& reliability,
                          std::int64_t interval_steps) {
  if (interval_steps < 1) throw std::invalid_argument("run_goodput: interval_steps must be >= 1");
  RunGoodput g = base(model, gpus, gpus_per_node, iteration, reliability);
  settle(g, reliability, interval_steps);
  return g;
}

RunGoodput run_goodput(const ModelSpec& model, std::int64_t gpus, std::int64_t gpus_per_node,
                       Time iteration, const hw::ReliabilitySpec& reliability) {
  RunGoodput g = base(model, gpus, gpus_per_node, iteration, reliability);
  const double step = iteration.seconds();
  // Without interruptions, or with free checkpoints, the interval does not matter: one a day.
  if (!std::isfinite(g.optimal_s)) {
    settle(g, reliability, std::max<std::int64_t>(1, std::llround(86400.0 / step)));
    return g;
  }
  // For a fixed stall the effective share is unimodal in τ, highest at τ*. An asynchronous
  // save's stall grows as τ falls below its write time w (less the copy c) so that τ + stall
  // stays w: the share rises with τ up to w − c and follows the fixed-stall curve beyond. So
  // the best whole step count is next to τ* or next to w − c.
  const double write_span = g.times.write.seconds() - g.times.stall.seconds();
  std::int64_t best = 1;
  double best_effective = -1.0;
  for (const double target : {g.optimal_s, write_span}) {
    for (const double k : {std::floor(target / step), std::ceil(target / step)}) {
      const auto steps = static_cast<std::int64_t>(std::clamp(k, 1.0, 1e12));
      settle(g, reliability, steps);
      if (g.effective > best_effective) {
        best_effective = g.effective;
        best = steps;
      }
    }
  }
  settle(g, reliability, best);
  return g;
}

}  // namespace trainsim::sim
