#include "reproductions/llama3_goodput.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "reports/scenario_run.hpp"
#include "reproductions/comparison_sets.hpp"
#include "sim/analysis/goodput.hpp"
#include "sim/analysis/run_goodput.hpp"
#include "units/format.hpp"

namespace trainsim::reproductions {
namespace {

constexpr const char* kSource = "Llama 3 (arXiv 2407.21783) §3.3.4";
constexpr double kWindowDays = 54.0;
constexpr std::int64_t kGpus = 16384;
constexpr std::int64_t kSamples = 10'000;
constexpr std::uint64_t kSeed = 2407;

std::string percent(double share) {
  return fmt::format("{:.2f} %", 100.0 * share);
}

/// The effective share over the window, drawn: W = effective × window of work, and each run's
/// W / wall.
struct WindowDraws {
  double p10 = 0.0;
  double p50 = 0.0;
  double p90 = 0.0;
  double mean_wall_days = 0.0;
};

WindowDraws window_draws(const sim::RunGoodput& g) {
  const double work = g.effective * kWindowDays * 86400.0;
  const sim::MonteCarloRuns runs =
      sim::monte_carlo_runs(work, g.interval_s, g.failures, kSamples, kSeed);
  // A longer wall time is a smaller share: the share's p10 is the wall time's p90.
  return {work / runs.p90, work / runs.p50, work / runs.p10, runs.mean / 86400.0};
}

documents::ReportTable window_table(const sim::WallTimeShares& s) {
  documents::ReportTable t;
  t.id = "window";
  t.columns = {"of the 54 days", "share", "hours"};
  const double hours = kWindowDays * 24.0;
  auto row = [&](const char* what, double share) {
    t.add_row({what, percent(share), fmt::format("{:.1f}", share * hours)});
  };
  row("training kept", s.work);
  row("checkpoint stalls", s.checkpoints);
  row("work lost to interruptions", s.lost_work);
  row("detecting, restarting, loading", s.restarts);
  row("planned stops", s.planned);
  return t;
}

documents::ReportTable cause_table(const sim::RunGoodput& g) {
  documents::ReportTable t;
  t.id = "causes";
  t.columns = {"cause", "per day at 16 384 GPUs", "in 54 days", "per GPU-day (dgx-h100)"};
  for (const sim::CauseRate& c : g.causes) {
    t.add_row({c.name, fmt::format("{:.3g}", c.per_day),
               fmt::format("{:.0f}", c.per_day * kWindowDays),
               fmt::format("{:.4g}", c.per_day / static_cast<double>(kGpus))});
  }
  t.add_row({"planned stops", fmt::format("{:.3g}", g.planned_per_day),
             fmt::format("{:.0f}", g.planned_per_day * kWindowDays),
             fmt::format("{:.4g}", g.planned_per_day / static_cast<double>(kGpus))});
  return t;
}

/// The mean time to interruption and the effective share against the GPU count, for the
/// 405B checkpoint at its optimal interval (1-second steps: the interval to the second).
std::vector<Sweep> scale_sweeps(const ModelSpec& model, const hw::HardwareProfile& hw) {
  Sweep mtti;
  mtti.id = "sweep-mtti";
  mtti.title =
      "mean time to an unplanned interruption against the GPU count (dgx-h100's "
      "rates: Llama 3's window)";
  mtti.x_label = "GPUs";
  mtti.y_label = "hours";
  mtti.series = {{"MTTI", {}}};
  mtti.references = {{16384.0, kWindowDays * 24.0 / 419.0, "Llama 3: 419 in 54 days"}};
  Sweep effective;
  effective.id = "sweep-effective";
  effective.title =
      "effective training time against the GPU count: the 405B checkpoint, "
      "its optimal interval, dgx-h100's reliability";
  effective.x_label = "GPUs";
  effective.y_label = "effective time (%)";
  effective.series = {{"effective", {}}, {"lost work and restarts", {}}};
  effective.references = {{16384.0, 90.0, "Llama 3: higher than 90 %"}};
  for (std::int64_t gpus = 1024; gpus <= 131072; gpus *= 2) {
    const sim::RunGoodput g =
        sim::run_goodput(model, gpus, hw.node.gpus, Time::from_seconds(1.0), *hw.reliability);
    const sim::WallTimeShares s = sim::wall_time_shares(g.interval_s, g.failures);
    const auto x = static_cast<double>(gpus);
    mtti.add_row(x, {g.mtti_s / 3600.0},
                 fmt::format("interval {:.0f} s, {} interruptions a day", g.interval_s,
                             fmt::format("{:.3g}", 86400.0 / g.mtti_s)));
    effective.add_row(x, {100.0 * g.effective, 100.0 * (s.lost_work + s.restarts)},
                      fmt::format("checkpoint stall {:.3g} s", g.failures.checkpoint_s));
  }
  return {mtti, effective};
}

}  // namespace

ReproductionReport run_llama3_goodput(const std::filesystem::path& root) {
  const reports::ScenarioRun run =
      reports::run_scenario_file(root / "scenarios/llama3/llama3-405b.yaml");
  const hw::HardwareProfile& hw = run.hardware;
  if (!hw.reliability)
    throw std::logic_error(fmt::format("{} has no reliability section", hw.file.string()));
  const sim::RunGoodput g = sim::run_goodput(run.scenario.model, run.scenario.gpus, hw.node.gpus,
                                             run.summary.iteration_time, *hw.reliability);
  const sim::WallTimeShares shares = sim::wall_time_shares(g.interval_s, g.failures);
  const WindowDraws draws = window_draws(g);

  ReproductionReport report;
  Comparison c;
  c.figure =
      "405B on 16 384 H100, 54-day window: effective training time (published: a lower "
      "bound)";
  c.source = fmt::format("{}: \"higher than 90 %\"", kSource);
  c.unit = "%";
  c.published = 90.0;
  c.predicted = 100.0 * g.effective;
  // Issue 25's target, stated before the run: between 90 % and 95 %; the claim below fails
  // under 90 %, this tolerance above 95 % (90 % x 1.056 = 95.04 %).
  c.aim = 0.056;
  c.tolerance = c.aim;
  c.set = set_names::kLlama3Goodput;
  report.comparisons.push_back(c);

  Claim claim;
  claim.statement =
      "Llama 3 405B's effective training time over the 54-day window is higher "
      "than 90 %";
  claim.source = kSource;
  claim.holds = g.effective > 0.90;
  claim.expected = true;
  claim.evidence = fmt::format(
      "{} (closed form); over the window's draws ({} runs, seed {}): p10 {}, p50 {}, p90 {}",
      percent(g.effective), kSamples, kSeed, percent(draws.p10), percent(draws.p50),
      percent(draws.p90));
  report.claims.push_back(claim);

  report.notes = fmt::format(
      "inputs (hwprofiles/dgx-h100.yaml, reliability:, each with its provenance): {:.4g} "
      "unplanned interruptions per GPU-day in 6 causes (Table 5's 419 in 54 days on 16 384 "
      "GPUs), {:.4g} planned; detect {} and restart {} (guesses, stated before the run); "
      "checkpoints to a {} file system (Llama 3 §3.3.1), synchronous\n"
      "checkpoint of the 405B model ({:.4g} parameters x 14 B: bf16 weights, fp32 master, Adam's "
      "two moments): {}, {} per GPU; saved in {} (bounded by the {}), loaded in {}\n"
      "iteration {} (replayed); mean time to interruption {:.2f} h; interval every {} steps "
      "({:.0f} s; exact optimum {:.0f} s, Young {:.0f} s, Daly {:.0f} s)\n"
      "restart after an unplanned interruption {:.1f} min; a planned stop {:.1f} min\n"
      "Monte Carlo of the window: mean wall {:.2f} days for {:.2f} days of kept work (closed "
      "form: 54)\n",
      hw.reliability->unplanned_total().per_gpu_day(), hw.reliability->planned.per_gpu_day(),
      hw.reliability->detect, hw.reliability->restart, hw.reliability->checkpoint.filesystem_write,
      static_cast<double>(run.scenario.model.parameters()), g.checkpoint.total,
      g.checkpoint.per_gpu, g.times.write, g.times.write_bound, g.times.load, g.iteration,
      g.mtti_s / 3600.0, g.interval_steps, g.interval_s, g.optimal_s, g.young_s, g.daly_s,
      g.failures.restart_s / 60.0, g.failures.planned_stop_s / 60.0, draws.mean_wall_days,
      g.effective * kWindowDays);
  report.tables.push_back(window_table(shares));
  report.tables.push_back(cause_table(g));
  report.sweeps = scale_sweeps(run.scenario.model, hw);
  return report;
}

}  // namespace trainsim::reproductions
