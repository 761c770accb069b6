#pragma once
// Table, JSON, CSV and the Pareto-front plot of `trainsim training-time`
// (sim/analysis/training_time.hpp).
//
// JSON keys, in order: scenario, hardware, parameters (Kaplan's N), loss_nats,
// loss_from_reference (no target loss: the scenario's batch taken as critical),
// critical_batch_tokens, min_steps, min_tokens, max_gpus, batches (grid, sequences),
// gpu_counts (grid), best (a point), best_at_batch_edge, front (points by increasing time),
// points (every feasible point, batch-major), skipped [{batch, gpus, reason, too_large_to_replay:
// the best estimated layout was too large to record on this machine}]. A point: batch (sequences),
// batch_tokens, gpus, description, layout (plan_report's layout fields), iteration_s, steps, days,
// gpu_hours, peak_bytes, on_front.
//
// CSV: one row per feasible point with the same scalar fields.
//
// With failures (the profile's reliability section; `--no-failures` leaves all of this out,
// so the failure-free output is unchanged byte for byte): the text adds the reliability
// figures used, the failure-aware shortest run and how far it moved from the failure-free
// one, the failure-aware front (p50 days against GPU-hours at the expected wall time, p90 and
// the checkpoint interval beside) and every point's figures; the JSON adds a point's
// `failures` object (interval, effective share, work, expected wall, Monte Carlo p10/p50/p90
// and mean, GPU-hours, on_front) and a top-level `failures` (profile, reliability, samples,
// seed, best, moved, front) after `skipped`; the CSV adds expected_days, p50_days, p90_days,
// interval_steps, effective, failure_gpu_hours, on_failure_front; the plot adds the
// failure-aware front with a bar from each p50 to its p90, and its shortest run marked.

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "documents/gnuplot_plot.hpp"
#include "documents/report_content.hpp"
#include "sim/analysis/training_time.hpp"
#include "sim/reliability.hpp"

namespace trainsim::reports {

struct TrainingTimeReport {
  std::string scenario;
  std::string hardware;
  std::int64_t seq_len = 0;
  std::int64_t max_gpus = 0;
  sim::TrainingTimeResult result;
  /// The profile's reliability figures the failure-aware points were drawn with (present
  /// exactly when result.failures is).
  std::optional<hw::ReliabilitySpec> reliability = {};
};

std::string training_time_text(const TrainingTimeReport& report);
nlohmann::ordered_json training_time_json(const TrainingTimeReport& report);
std::string training_time_csv(const TrainingTimeReport& report);
/// The Pareto front (days against GPU-hours), the shortest run marked, and with failures the
/// failure-aware front (p50, a bar to p90) and its shortest: the one plot of the command
/// (`--plot`) and of its report.
documents::PlotSpec training_time_plot(const TrainingTimeReport& report);
/// training_time_plot drawn by gnuplot, written atomically.
void write_training_time_plot(const std::filesystem::path& path, const TrainingTimeReport& report);
/// `trainsim report training-time`: block `result` (the text, fenced), table `points` (also
/// points.csv, the same as `--csv`) and plot `pareto`.
documents::ReportContent training_time_content(const TrainingTimeReport& report);

}  // namespace trainsim::reports
