#include "reports/analyses/goodput_report.hpp"

#include <fmt/format.h>

#include <cmath>

#include "units/format.hpp"

namespace trainsim::reports {
namespace {

constexpr double kDay = 86400.0;

std::string duration(double seconds) {
  if (!std::isfinite(seconds)) return "never";
  if (seconds >= 2.0 * kDay) return fmt::format("{:.2f} days", seconds / kDay);
  if (seconds >= 2.0 * 3600.0) return fmt::format("{:.2f} h", seconds / 3600.0);
  if (seconds >= 120.0) return fmt::format("{:.1f} min", seconds / 60.0);
  return fmt::format("{:.3g} s", seconds);
}

nlohmann::ordered_json seconds_or_null(double s) {
  return std::isfinite(s) ? nlohmann::ordered_json(s) : nlohmann::ordered_json(nullptr);
}

}  // namespace

GoodputAnalysis analyze_goodput(std::string scenario, std::string hardware,
                                std::int64_t tokens_per_step, double steps,
                                const sim::RunGoodput& goodput, std::int64_t samples,
                                std::uint64_t seed) {
  GoodputAnalysis a;
  a.scenario = std::move(scenario);
  a.hardware = std::move(hardware);
  a.tokens_per_step = tokens_per_step;
  a.steps = steps;
  a.run = goodput;
  a.shares = sim::wall_time_shares(goodput.interval_s, goodput.failures);
  const sim::PointGoodput outcome = sim::run_outcome(goodput, steps, samples, seed);
  a.work_s = outcome.work_s;
  a.expected_wall_s = outcome.expected_wall_s;
  a.samples = samples;
  a.seed = static_cast<std::int64_t>(seed);
  a.monte_carlo = outcome.monte_carlo;
  return a;
}

std::string goodput_text(const GoodputAnalysis& a) {
  const sim::RunGoodput& g = a.run;
  const sim::FailureModel& f = g.failures;
  std::string out =
      fmt::format("{} on {}: {} GPUs, iteration {}\n", a.scenario, a.hardware, g.gpus, g.iteration);
  out += fmt::format(
      "run: {:.0f} steps × {} tokens = {:.4g} tokens, {} of work without failures\n\n", a.steps,
      a.tokens_per_step, a.steps * static_cast<double>(a.tokens_per_step), duration(a.work_s));
  out += fmt::format("  checkpoint          {} ({} per GPU, {} per node)\n", g.checkpoint.total,
                     g.checkpoint.per_gpu, g.checkpoint.per_node);
  out += fmt::format(
      "    save              {} to store, bounded by the {}; training waits {}{}\n", g.times.write,
      g.times.write_bound, duration(f.checkpoint_s),
      g.write_wait_s > 0.0
          ? fmt::format(" (of which {} for the previous save's write)", duration(g.write_wait_s))
          : "");
  out += fmt::format("    load              {}, bounded by the {}\n", g.times.load,
                     g.times.load_bound);
  double unplanned_per_day = 0.0;
  for (const sim::CauseRate& c : g.causes)
    unplanned_per_day += c.per_day;
  out +=
      fmt::format("  interruptions       {:.3g} unplanned per day (one every {}), {:.3g} planned\n",
                  unplanned_per_day, duration(g.mtti_s), g.planned_per_day);
  for (const sim::CauseRate& c : g.causes)
    out += fmt::format("    {:<17} {:.3g} per day\n", c.name, c.per_day);
  out += fmt::format(
      "  restart             {} after an unplanned one (detect, restart, load); "
      "{} per planned stop (save, restart, load)\n",
      duration(f.restart_s), duration(f.planned_stop_s));
  out += fmt::format(
      "  checkpoint interval every {} steps ({:.4g} s of work); the exact optimum "
      "{:.4g} s, Young {:.4g} s, Daly {:.4g} s\n",
      g.interval_steps, g.interval_s, g.optimal_s, g.young_s, g.daly_s);
  out += fmt::format("  effective time      {:.2f} % of wall time trains (closed form)\n",
                     100.0 * g.effective);
  out += fmt::format(
      "  wall time           {:.2f} % training, {:.2f} % checkpoints, {:.2f} % lost work, "
      "{:.2f} % restarts, {:.2f} % planned stops\n\n",
      100.0 * a.shares.work, 100.0 * a.shares.checkpoints, 100.0 * a.shares.lost_work,
      100.0 * a.shares.restarts, 100.0 * a.shares.planned);
  const sim::MonteCarloRuns& mc = a.monte_carlo;
  out += fmt::format(
      "  time to train       {} without failures; with them {} expected "
      "(closed form)\n",
      duration(a.work_s), duration(a.expected_wall_s));
  out += fmt::format(
      "    Monte Carlo       {} runs, seed {}: mean {}, p10 {}, p50 {}, p90 {}; "
      "{:.4g} unplanned and {:.4g} planned interruptions per run\n",
      a.samples, a.seed, duration(mc.mean), duration(mc.p10), duration(mc.p50), duration(mc.p90),
      mc.mean_unplanned, mc.mean_planned);
  return out;
}

nlohmann::ordered_json goodput_json(const GoodputAnalysis& a) {
  const sim::RunGoodput& g = a.run;
  const sim::FailureModel& f = g.failures;
  nlohmann::ordered_json j;
  j["scenario"] = a.scenario;
  j["hardware"] = a.hardware;
  j["gpus"] = g.gpus;
  j["iteration_s"] = g.iteration.seconds();
  j["steps"] = a.steps;
  j["tokens"] = a.steps * static_cast<double>(a.tokens_per_step);
  j["checkpoint"] = {{"bytes", g.checkpoint.total.count()},
                     {"bytes_per_gpu", g.checkpoint.per_gpu.count()},
                     {"bytes_per_node", g.checkpoint.per_node.count()},
                     {"write_s", g.times.write.seconds()},
                     {"write_bound", g.times.write_bound},
                     {"stall_s", f.checkpoint_s},
                     {"load_s", g.times.load.seconds()},
                     {"load_bound", g.times.load_bound}};
  nlohmann::ordered_json causes = nlohmann::ordered_json::object();
  for (const sim::CauseRate& c : g.causes)
    causes[c.name] = c.per_day;
  j["interruptions_per_day"] = {{"unplanned", causes}, {"planned", g.planned_per_day}};
  j["mean_time_to_interruption_s"] = seconds_or_null(g.mtti_s);
  j["restart_s"] = f.restart_s;
  j["planned_stop_s"] = f.planned_stop_s;
  j["interval"] = {{"steps", g.interval_steps},
                   {"seconds", g.interval_s},
                   {"optimal_s", seconds_or_null(g.optimal_s)},
                   {"young_s", seconds_or_null(g.young_s)},
                   {"daly_s", seconds_or_null(g.daly_s)}};
  j["effective"] = g.effective;
  j["wall_time_shares"] = {{"work", a.shares.work},
                           {"checkpoints", a.shares.checkpoints},
                           {"lost_work", a.shares.lost_work},
                           {"restarts", a.shares.restarts},
                           {"planned", a.shares.planned}};
  j["work_s"] = a.work_s;
  j["expected_wall_s"] = a.expected_wall_s;
  const sim::MonteCarloRuns& mc = a.monte_carlo;
  j["monte_carlo"] = {{"samples", a.samples},
                      {"seed", a.seed},
                      {"mean_s", mc.mean},
                      {"p10_s", mc.p10},
                      {"p50_s", mc.p50},
                      {"p90_s", mc.p90},
                      {"unplanned_per_run", mc.mean_unplanned},
                      {"planned_per_run", mc.mean_planned}};
  return j;
}

}  // namespace trainsim::reports
