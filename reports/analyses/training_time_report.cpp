#include "reports/analyses/training_time_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "documents/gnuplot_plot.hpp"
#include "documents/report_table.hpp"
#include "reports/analyses/plan_report.hpp"

namespace trainsim::reports {
namespace {

constexpr double kSecondsPerDay = 86400.0;

bool on_front(const sim::TrainingTimeResult& r, std::size_t index) {
  return std::find(r.front.begin(), r.front.end(), index) != r.front.end();
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
  out += fmt::format(
      "searched: batches {} to {} sequences (powers of two), GPUs {} to {} (halvings), {} "
      "points with a layout, {} without; steps S = S_min·(1 + B_crit/B)\n\n",
      r.batches.front(), r.batches.back(), r.gpu_counts.back(), r.gpu_counts.front(),
      r.points.size(), r.skipped.size());
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
    skipped.push_back({{"batch", k.batch}, {"gpus", k.gpus}, {"reason", k.reason}});
  j["skipped"] = skipped;
  return j;
}

// Every feasible point, one row each: the CSV of `--csv` and of `trainsim report`.
documents::ReportTable points_table(const TrainingTimeReport& report) {
  documents::ReportTable table{"points",
                               {"batch", "batch_tokens", "gpus", "description", "iteration_s",
                                "steps", "days", "gpu_hours", "peak_bytes", "on_front"},
                               {}};
  const sim::TrainingTimeResult& r = report.result;
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    const sim::TrainingPoint& p = r.points[i];
    table.add_row({fmt::format("{}", p.batch), fmt::format("{}", p.batch * report.seq_len),
                   fmt::format("{}", p.gpus), sim::describe(p.layout.candidate.layout),
                   fmt::format("{}", p.layout.iteration.seconds()), fmt::format("{}", p.steps),
                   fmt::format("{}", p.seconds / kSecondsPerDay), fmt::format("{}", p.gpu_hours),
                   fmt::format("{}", p.layout.peak.count()), on_front(r, i) ? "1" : "0"});
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
  documents::PlotSeries front{"Pareto front", {}};
  for (std::size_t i : r.front)
    front.points.push_back({r.points[i].seconds / kSecondsPerDay, r.points[i].gpu_hours});
  plot.series.push_back(front);
  const sim::TrainingPoint& best = r.points[r.best];
  plot.markers_title = "shortest run";
  plot.markers.push_back({{best.seconds / kSecondsPerDay, best.gpu_hours},
                          fmt::format("shortest: {} GPUs, batch {}", best.gpus, best.batch)});
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
