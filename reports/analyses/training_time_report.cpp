#include "reports/analyses/training_time_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "documents/gnuplot_plot.hpp"
#include "documents/report_table.hpp"
#include "reports/analyses/plan_report.hpp"
#include "units/format.hpp"

namespace trainsim::reports {
namespace {

constexpr double kSecondsPerDay = 86400.0;

double days(double seconds) {
  return seconds / kSecondsPerDay;
}

bool on_front(const sim::TrainingTimeResult& r, std::size_t index) {
  return std::find(r.front.begin(), r.front.end(), index) != r.front.end();
}

// ---- with failures (every point has its goodput exactly when result.failures is set) ------

const sim::PointGoodput& goodput_of(const TrainingTimeReport& report, std::size_t index) {
  return report.result.points[index].goodput.value();
}

bool on_failure_front(const sim::TrainingTimeResult& r, std::size_t index) {
  const std::vector<std::size_t>& front = r.failures.value().front;
  return std::find(front.begin(), front.end(), index) != front.end();
}

nlohmann::ordered_json finite_or_null(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json point_failures_json(const TrainingTimeReport& report, std::size_t index) {
  const sim::PointGoodput& g = goodput_of(report, index);
  const sim::RunGoodput& run = g.run;
  double unplanned_per_day = 0.0;
  for (const sim::CauseRate& c : run.causes)
    unplanned_per_day += c.per_day;
  nlohmann::ordered_json j;
  j["interval_steps"] = run.interval_steps;
  j["interval_s"] = run.interval_s;
  j["optimal_interval_s"] = finite_or_null(run.optimal_s);
  j["effective"] = run.effective;
  j["checkpoint_bytes"] = run.checkpoint.total.count();
  j["checkpoint_stall_s"] = run.failures.checkpoint_s;
  j["restart_s"] = run.failures.restart_s;
  j["planned_stop_s"] = run.failures.planned_stop_s;
  j["unplanned_per_day"] = unplanned_per_day;
  j["planned_per_day"] = run.planned_per_day;
  j["mean_time_to_interruption_s"] = finite_or_null(run.mtti_s);
  j["work_s"] = g.work_s;
  j["expected_wall_s"] = g.expected_wall_s;
  j["expected_days"] = days(g.expected_wall_s);
  const sim::MonteCarloRuns& mc = g.monte_carlo;
  j["monte_carlo"] = {{"seed", g.seed},
                      {"mean_days", days(mc.mean)},
                      {"p10_days", days(mc.p10)},
                      {"p50_days", days(mc.p50)},
                      {"p90_days", days(mc.p90)},
                      {"unplanned_per_run", mc.mean_unplanned},
                      {"planned_per_run", mc.mean_planned}};
  j["gpu_hours"] = g.gpu_hours;
  j["on_front"] = on_failure_front(report.result, index);
  return j;
}

nlohmann::ordered_json point_json(const TrainingTimeReport& report, std::size_t index) {
  const sim::TrainingPoint& p = report.result.points[index];
  nlohmann::ordered_json j;
  j["batch"] = p.batch;
  j["batch_tokens"] = p.batch * report.seq_len;
  j["gpus"] = p.gpus;
  j["description"] = sim::describe(p.layout.candidate.layout);
  j["layout"] = layout_json(p.layout.candidate.layout);
  j["iteration_s"] = p.layout.iteration.seconds();
  j["steps"] = p.steps;
  j["days"] = p.seconds / kSecondsPerDay;
  j["gpu_hours"] = p.gpu_hours;
  j["peak_bytes"] = p.layout.peak.count();
  j["on_front"] = on_front(report.result, index);
  if (report.result.failures) j["failures"] = point_failures_json(report, index);
  return j;
}

std::string point_row(const TrainingTimeReport& report, std::size_t index) {
  const sim::TrainingPoint& p = report.result.points[index];
  return fmt::format("{:>8} {:>6} {:>11.4g} {:>10.0f} {:>9.2f} {:>12.4g}  {}\n", p.batch, p.gpus,
                     p.layout.iteration.seconds(), p.steps, p.seconds / kSecondsPerDay, p.gpu_hours,
                     sim::describe(p.layout.candidate.layout));
}

constexpr const char* kHeader =
    "   batch   GPUs iteration s     steps      days    GPU-hours  layout\n";

// The profile's figures the points were drawn with, as the text states them.
std::string reliability_summary(const hw::ReliabilitySpec& r) {
  std::string causes;
  for (const hw::InterruptionCause& c : r.unplanned)
    causes += fmt::format("{}{} {:.4g}", causes.empty() ? "" : ", ", c.name, c.rate.per_gpu_day());
  return fmt::format(
      "interruptions per GPU-day {:.4g} unplanned ({}), {:.4g} planned; detect {}, restart {}; "
      "{} checkpoints, file system {} write, {} read",
      r.unplanned_total().per_gpu_day(), causes, r.planned.per_gpu_day(), r.detect, r.restart,
      r.checkpoint.asynchronous ? "asynchronous" : "synchronous", r.checkpoint.filesystem_write,
      r.checkpoint.filesystem_read);
}

constexpr const char* kFailureHeader =
    "   batch   GPUs  work days  exp. days  p50 days  p90 days    GPU-hours  ckpt steps  "
    "effective  layout\n";

std::string failure_row(const TrainingTimeReport& report, std::size_t index) {
  const sim::TrainingPoint& p = report.result.points[index];
  const sim::PointGoodput& g = goodput_of(report, index);
  return fmt::format(
      "{:>8} {:>6} {:>10.2f} {:>10.2f} {:>9.2f} {:>9.2f} {:>12.4g} {:>11} {:>9.2f}%  {}\n", p.batch,
      p.gpus, days(g.work_s), days(g.expected_wall_s), days(g.monte_carlo.p50),
      days(g.monte_carlo.p90), g.gpu_hours, g.run.interval_steps, 100.0 * g.run.effective,
      sim::describe(p.layout.candidate.layout));
}

// "×2", "÷4" or "the same": how a count moved.
std::string count_move(std::int64_t from, std::int64_t to) {
  if (from == to) return "the same";
  const auto a = static_cast<double>(from);
  const auto b = static_cast<double>(to);
  return from < to ? fmt::format("×{:.3g}", b / a) : fmt::format("÷{:.3g}", a / b);
}

std::string failures_text(const TrainingTimeReport& report) {
  const sim::TrainingTimeResult& r = report.result;
  const sim::FailureRanking& f = r.failures.value();
  std::string out = fmt::format(
      "\nwith failures, from {}'s reliability: section; --no-failures gives the failure-free "
      "answer alone\n  {}\n",
      report.hardware, reliability_summary(report.reliability.value()));
  out += fmt::format(
      "each point: the checkpoint interval in whole steps (the best effective share), the "
      "expected wall time (closed form) and {} Monte Carlo runs (seed {} mixed with the point's "
      "batch and GPUs); GPU-hours = GPUs × expected wall time\n\n",
      f.options.samples, f.options.seed);
  const sim::TrainingPoint& best = r.points[f.best];
  const sim::PointGoodput& g = goodput_of(report, f.best);
  out += fmt::format(
      "shortest with failures: {} on {} GPUs at batch {}: p50 {:.2f} days, p90 {:.2f}, "
      "expected {:.2f} ({:.2f} of work), checkpoint every {} steps, effective {:.2f} %, {:.4g} "
      "GPU-hours\n",
      sim::describe(best.layout.candidate.layout), best.gpus, best.batch, days(g.monte_carlo.p50),
      days(g.monte_carlo.p90), days(g.expected_wall_s), days(g.work_s), g.run.interval_steps,
      100.0 * g.run.effective, g.gpu_hours);
  const sim::TrainingPoint& free = r.points[r.best];
  const sim::PointGoodput& free_g = goodput_of(report, r.best);
  if (f.best == r.best) {
    out += fmt::format(
        "the failure-free shortest stays shortest: its {:.2f} days of work take {:.2f} days "
        "(p50) with failures\n",
        days(free.seconds), days(free_g.monte_carlo.p50));
  } else {
    out += fmt::format(
        "moved from the failure-free shortest ({} GPUs, batch {}: {:.2f} days without failures, "
        "p50 {:.2f} with them): GPUs {}, batch {}, p50 {:+.2f} days\n",
        free.gpus, free.batch, days(free.seconds), days(free_g.monte_carlo.p50),
        count_move(free.gpus, best.gpus), count_move(free.batch, best.batch),
        days(g.monte_carlo.p50 - free_g.monte_carlo.p50));
  }
  out += fmt::format(
      "\nfailure-aware Pareto front (p50 days against GPU-hours with failures), {} points:\n{}",
      f.front.size(), kFailureHeader);
  for (std::size_t i : f.front)
    out += failure_row(report, i);
  out += fmt::format("\nevery point with failures:\n{}", kFailureHeader);
  for (std::size_t i = 0; i < r.points.size(); ++i)
    out += failure_row(report, i);
  return out;
}

nlohmann::ordered_json failures_json(const TrainingTimeReport& report) {
  const sim::TrainingTimeResult& r = report.result;
  const sim::FailureRanking& f = r.failures.value();
  const hw::ReliabilitySpec& spec = report.reliability.value();
  nlohmann::ordered_json j;
  j["profile"] = report.hardware;
  nlohmann::ordered_json causes = nlohmann::ordered_json::object();
  for (const hw::InterruptionCause& c : spec.unplanned)
    causes[c.name] = c.rate.per_gpu_day();
  j["reliability"] = {{"unplanned_per_gpu_day", causes},
                      {"planned_per_gpu_day", spec.planned.per_gpu_day()},
                      {"detect_s", spec.detect.seconds()},
                      {"restart_s", spec.restart.seconds()},
                      {"asynchronous_checkpoints", spec.checkpoint.asynchronous}};
  j["samples"] = f.options.samples;
  j["seed"] = f.options.seed;
  j["best"] = point_json(report, f.best);
  const sim::TrainingPoint& best = r.points[f.best];
  const sim::TrainingPoint& free = r.points[r.best];
  j["moved"] = {{"same_point", f.best == r.best},
                {"gpus_from", free.gpus},
                {"gpus_to", best.gpus},
                {"batch_from", free.batch},
                {"batch_to", best.batch},
                {"days_from", days(free.seconds)},
                {"p50_days_from", days(goodput_of(report, r.best).monte_carlo.p50)},
                {"p50_days_to", days(goodput_of(report, f.best).monte_carlo.p50)}};
  nlohmann::ordered_json front = nlohmann::ordered_json::array();
  for (std::size_t i : f.front)
    front.push_back(point_json(report, i));
  j["front"] = front;
  return j;
}

}  // namespace

std::string training_time_text(const TrainingTimeReport& report) {
  const sim::TrainingTimeResult& r = report.result;
  std::string out = fmt::format(
      "{} on {}: N = {:.4g} non-embedding parameters; loss {:.4f} nats{}; B_crit {:.4g} tokens "
      "({:.1f} sequences of {}); S_min {:.0f} steps, E_min {:.4g} tokens\n",
      report.scenario, report.hardware, r.parameters, r.loss_nats,
      r.loss_from_reference ? " (the scenario's batch taken as critical)" : "",
      r.critical_batch.count(), r.critical_batch.count() / static_cast<double>(report.seq_len),
      report.seq_len, r.min_steps, r.min_tokens.count());
  const auto too_large = std::count_if(r.skipped.begin(), r.skipped.end(),
                                       [](const sim::SkippedPoint& k) { return k.too_large; });
  out += fmt::format(
      "searched: batches {} to {} sequences (powers of two), GPUs {} to {} (halvings), {} "
      "points with a layout, {} without{}; steps S = S_min·(1 + B_crit/B)\n\n",
      r.batches.front(), r.batches.back(), r.gpu_counts.back(), r.gpu_counts.front(),
      r.points.size(), r.skipped.size(),
      too_large == 0 ? std::string()
                     : fmt::format(" ({} of them only because their best estimated layout "
                                   "is too large to replay on this machine)",
                                   too_large));
  const sim::TrainingPoint& best = r.points[r.best];
  out += fmt::format(
      "shortest: {} on {} GPUs at batch {} ({:.2f} × B_crit): iteration {:.3f} s, {:.0f} steps, "
      "{:.2f} days, {:.4g} GPU-hours\n",
      sim::describe(best.layout.candidate.layout), best.gpus, best.batch,
      static_cast<double>(best.batch * report.seq_len) / r.critical_batch.count(),
      best.layout.iteration.seconds(), best.steps, best.seconds / kSecondsPerDay, best.gpu_hours);
  if (r.best_at_batch_edge) {
    out += "note: the best batch is at the edge of the grid; a wider grid may do better\n";
  }
  out += fmt::format("\nPareto front (time against GPU-hours), {} points:\n{}", r.front.size(),
                     kHeader);
  for (std::size_t i : r.front)
    out += point_row(report, i);
  out += fmt::format("\nevery point:\n{}", kHeader);
  for (std::size_t i = 0; i < r.points.size(); ++i)
    out += point_row(report, i);
  if (r.failures) out += failures_text(report);
  return out;
}

nlohmann::ordered_json training_time_json(const TrainingTimeReport& report) {
  const sim::TrainingTimeResult& r = report.result;
  nlohmann::ordered_json j;
  j["scenario"] = report.scenario;
  j["hardware"] = report.hardware;
  j["parameters"] = r.parameters;
  j["loss_nats"] = r.loss_nats;
  j["loss_from_reference"] = r.loss_from_reference;
  j["critical_batch_tokens"] = r.critical_batch.count();
  j["min_steps"] = r.min_steps;
  j["min_tokens"] = r.min_tokens.count();
  j["max_gpus"] = report.max_gpus;
  j["batches"] = r.batches;
  j["gpu_counts"] = r.gpu_counts;
  j["best"] = point_json(report, r.best);
  j["best_at_batch_edge"] = r.best_at_batch_edge;
  nlohmann::ordered_json front = nlohmann::ordered_json::array();
  for (std::size_t i : r.front)
    front.push_back(point_json(report, i));
  j["front"] = front;
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < r.points.size(); ++i)
    points.push_back(point_json(report, i));
  j["points"] = points;
  nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
  for (const sim::SkippedPoint& k : r.skipped)
    skipped.push_back({{"batch", k.batch},
                       {"gpus", k.gpus},
                       {"reason", k.reason},
                       {"too_large_to_replay", k.too_large}});
  j["skipped"] = skipped;
  if (r.failures) j["failures"] = failures_json(report);
  return j;
}

// Every feasible point, one row each: the CSV of `--csv` and of `trainsim report`.
documents::ReportTable points_table(const TrainingTimeReport& report) {
  const sim::TrainingTimeResult& r = report.result;
  std::vector<std::string> columns{"batch",       "batch_tokens", "gpus", "description",
                                   "iteration_s", "steps",        "days", "gpu_hours",
                                   "peak_bytes",  "on_front"};
  if (r.failures) {
    for (const char* c : {"expected_days", "p50_days", "p90_days", "interval_steps", "effective",
                          "failure_gpu_hours", "on_failure_front"})
      columns.emplace_back(c);
  }
  documents::ReportTable table{"points", columns, {}};
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    const sim::TrainingPoint& p = r.points[i];
    std::vector<std::string> row{fmt::format("{}", p.batch),
                                 fmt::format("{}", p.batch * report.seq_len),
                                 fmt::format("{}", p.gpus),
                                 sim::describe(p.layout.candidate.layout),
                                 fmt::format("{}", p.layout.iteration.seconds()),
                                 fmt::format("{}", p.steps),
                                 fmt::format("{}", p.seconds / kSecondsPerDay),
                                 fmt::format("{}", p.gpu_hours),
                                 fmt::format("{}", p.layout.peak.count()),
                                 on_front(r, i) ? "1" : "0"};
    if (r.failures) {
      const sim::PointGoodput& g = goodput_of(report, i);
      for (const double v :
           {days(g.expected_wall_s), days(g.monte_carlo.p50), days(g.monte_carlo.p90)})
        row.push_back(fmt::format("{}", v));
      row.push_back(fmt::format("{}", g.run.interval_steps));
      row.push_back(fmt::format("{}", g.run.effective));
      row.push_back(fmt::format("{}", g.gpu_hours));
      row.emplace_back(on_failure_front(r, i) ? "1" : "0");
    }
    table.add_row(row);
  }
  return table;
}

std::string training_time_csv(const TrainingTimeReport& report) {
  return points_table(report).csv();
}

documents::PlotSpec training_time_plot(const TrainingTimeReport& report) {
  const sim::TrainingTimeResult& r = report.result;
  documents::PlotSpec plot;
  plot.title =
      fmt::format("time to train {} against cost (max {} GPUs)", report.scenario, report.max_gpus);
  plot.x_label = "days";
  plot.y_label = "GPU-hours";
  documents::PlotSeries front{r.failures ? "Pareto front, no failures" : "Pareto front", {}};
  for (std::size_t i : r.front)
    front.points.push_back({r.points[i].seconds / kSecondsPerDay, r.points[i].gpu_hours});
  plot.series.push_back(front);
  const sim::TrainingPoint& best = r.points[r.best];
  plot.markers_title = "shortest run";
  plot.markers.push_back({{best.seconds / kSecondsPerDay, best.gpu_hours},
                          fmt::format("shortest: {} GPUs, batch {}", best.gpus, best.batch)});
  if (r.failures) {
    // The failure-aware front: each point at its p50, a bar to its p90, GPU-hours at the
    // expected wall time.
    documents::PlotSeries failures{
        fmt::format("with {}'s failures: p50, bar to p90", report.hardware), {}};
    for (std::size_t i : r.failures->front) {
      const sim::PointGoodput& g = goodput_of(report, i);
      failures.points.push_back({days(g.monte_carlo.p50), g.gpu_hours});
      failures.x_high.push_back(days(g.monte_carlo.p90));
    }
    plot.series.push_back(failures);
    const sim::TrainingPoint& f = r.points[r.failures->best];
    const sim::PointGoodput& g = goodput_of(report, r.failures->best);
    // The same point with and without failures sits almost in one place: one label for both.
    const bool same = r.failures->best == r.best;
    if (same) plot.markers.front().label += " (also with failures)";
    plot.markers.push_back(
        {{days(g.monte_carlo.p50), g.gpu_hours},
         same ? "" : fmt::format("with failures: {} GPUs, batch {}", f.gpus, f.batch)});
    plot.markers_title = "shortest runs";
  }
  return plot;
}

void write_training_time_plot(const std::filesystem::path& path, const TrainingTimeReport& report) {
  documents::write_svg(path, training_time_plot(report));
}

documents::ReportContent training_time_content(const TrainingTimeReport& report) {
  documents::ReportContent content;
  content.add_block("result", documents::fenced(training_time_text(report)));
  content.add_table(points_table(report));
  content.add_plot("pareto", training_time_plot(report));
  return content;
}

}  // namespace trainsim::reports
