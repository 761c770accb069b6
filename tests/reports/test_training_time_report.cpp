// `trainsim training-time`'s output (reports/analyses/training_time_report) with and without
// failures: the failure-free text, JSON, CSV and plot are unchanged when failures are off, and
// with them every failure-aware figure is carried.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <filesystem>
#include <string>

#include "documents/gnuplot_plot.hpp"
#include "inputs/scenario_loader.hpp"
#include "reports/analyses/training_time_report.hpp"
#include "sim/analysis/training_time.hpp"

namespace trainsim::reports {
namespace {

// tiny-llama-pp2 on dgx-h100 (which has a reliability section): 4 points, batches 4 and 8 on
// 2 and 1 GPUs, 1D layouts, one thread: well under a second.
TrainingTimeReport tiny_report(bool failures) {
  const Scenario scenario = inputs::load_scenario(std::filesystem::path(TRAINSIM_SOURCE_ROOT) /
                                                  "scenarios/tests/tiny-llama-pp2.yaml");
  const hw::HardwareProfile hardware = inputs::scenario_hardware(scenario);
  REQUIRE(hardware.reliability);
  sim::TrainingTimeRequest request;
  request.tokens = 1e9;
  request.reference_batch = 8;
  request.max_gpus = 2;
  request.batch_span = 1;
  request.search.threads = 1;
  request.search.space.tensor_grids = false;
  request.search.space.max_micro_batch = 2;
  if (failures) request.failures = sim::FailureOptions{100, 7};
  TrainingTimeReport report;
  report.scenario = scenario.name;
  report.hardware = hardware.name;
  report.seq_len = scenario.model.seq_len;
  report.max_gpus = request.max_gpus;
  report.result = sim::search_training_time(scenario.model, hardware, request);
  if (failures) report.reliability = hardware.reliability;
  return report;
}

}  // namespace

TEST_CASE("training-time report: without failures nothing of them is written") {
  const TrainingTimeReport report = tiny_report(false);
  CHECK(training_time_text(report).find("with failures") == std::string::npos);
  const nlohmann::ordered_json j = training_time_json(report);
  CHECK_FALSE(j.contains("failures"));
  CHECK_FALSE(j["points"][0].contains("failures"));
  CHECK(training_time_csv(report).starts_with(
      "batch,batch_tokens,gpus,description,iteration_s,steps,days,gpu_hours,peak_bytes,"
      "on_front\n"));
  const documents::PlotSpec plot = training_time_plot(report);
  REQUIRE(plot.series.size() == 1);
  CHECK(plot.series[0].name == "Pareto front");
  CHECK(plot.markers.size() == 1);
}

TEST_CASE("training-time report: points whose best layout is too large to replay are told apart") {
  TrainingTimeReport report = tiny_report(false);
  const std::string plain = training_time_text(report);
  CHECK(plain.find("too large to replay") == std::string::npos);
  report.result.skipped.push_back({64, 2, "no layout of 2 GPUs fits", false});
  report.result.skipped.push_back({64, 2, "recording the Programs of 2 GPUs would hold", true});
  const std::string text = training_time_text(report);
  CHECK(text.find(fmt::format("{} without (1 of them only because their best estimated layout is "
                              "too large to replay on this machine)",
                              report.result.skipped.size())) != std::string::npos);
  const nlohmann::ordered_json j = training_time_json(report);
  const nlohmann::ordered_json& skipped = j["skipped"];
  CHECK(skipped.back()["too_large_to_replay"] == true);
  CHECK(skipped[skipped.size() - 2]["too_large_to_replay"] == false);
}

TEST_CASE("training-time report: with failures the failure-free text comes first, unchanged") {
  const TrainingTimeReport off = tiny_report(false);
  const TrainingTimeReport on = tiny_report(true);
  const std::string free_text = training_time_text(off);
  const std::string text = training_time_text(on);
  CHECK(text.starts_with(free_text));
  const std::string added = text.substr(free_text.size());
  CHECK(added.starts_with("\nwith failures, from dgx-h100's reliability: section; "));
  CHECK(added.find("\n  interruptions per GPU-day 0.0004735 unplanned (faulty_gpu 0.0001424, ") !=
        std::string::npos);
  CHECK(added.find("--no-failures gives the failure-free answer alone") != std::string::npos);
  CHECK(added.find("100 Monte Carlo runs (seed 7") != std::string::npos);
  CHECK(added.find("shortest with failures: ") != std::string::npos);
  CHECK(added.find("failure-aware Pareto front (p50 days against GPU-hours with failures)") !=
        std::string::npos);
  CHECK(added.find("p50 days  p90 days    GPU-hours  ckpt steps  effective") != std::string::npos);
}

TEST_CASE("training-time report: with failures the JSON, CSV and plot carry them") {
  const TrainingTimeReport report = tiny_report(true);
  const sim::TrainingTimeResult& r = report.result;
  const nlohmann::ordered_json j = training_time_json(report);
  REQUIRE(j.contains("failures"));
  const nlohmann::ordered_json& f = j["failures"];
  CHECK(f["profile"] == "dgx-h100");
  CHECK(f["samples"] == 100);
  CHECK(f["seed"] == 7);
  CHECK(f["reliability"]["unplanned_per_gpu_day"].contains("faulty_gpu"));
  CHECK(f["best"]["description"] == f["front"][0]["description"]);
  CHECK(f["moved"]["same_point"] == (r.failures->best == r.best));
  REQUIRE(j["points"].size() == r.points.size());
  for (const auto& p : j["points"]) {
    const auto& g = p["failures"];
    CHECK(g["expected_wall_s"].get<double>() >= g["work_s"].get<double>());
    CHECK(g["monte_carlo"]["p90_days"].get<double>() >= g["monte_carlo"]["p50_days"].get<double>());
    CHECK(g["interval_steps"].get<std::int64_t>() >= 1);
    CHECK(g.contains("effective"));
    CHECK(g.contains("gpu_hours"));
  }
  const std::string csv = training_time_csv(report);
  CHECK(
      csv.starts_with("batch,batch_tokens,gpus,description,iteration_s,steps,days,gpu_hours,"
                      "peak_bytes,on_front,expected_days,p50_days,p90_days,interval_steps,"
                      "effective,failure_gpu_hours,on_failure_front\n"));

  const documents::PlotSpec plot = training_time_plot(report);
  REQUIRE(plot.series.size() == 2);
  CHECK(plot.series[0].name == "Pareto front, no failures");
  const documents::PlotSeries& failures = plot.series[1];
  CHECK(failures.name == "with dgx-h100's failures: p50, bar to p90");
  REQUIRE(failures.points.size() == r.failures->front.size());
  REQUIRE(failures.x_high.size() == failures.points.size());
  for (std::size_t i = 0; i < failures.points.size(); ++i)
    CHECK(failures.x_high[i] >= failures.points[i].x);
  REQUIRE(plot.markers.size() == 2);
  // One label where both shortest runs are the same point, two otherwise.
  const bool same = r.failures->best == r.best;
  CHECK(plot.markers[0].label.ends_with(" (also with failures)") == same);
  CHECK(plot.markers[1].label.empty() == same);
  CHECK(documents::gnuplot_script(plot).find("using 1:2:1:3 with xerrorlines") !=
        std::string::npos);
}

TEST_CASE("training-time report: a failure-aware best elsewhere says how far it moved") {
  TrainingTimeReport report = tiny_report(true);
  sim::TrainingTimeResult& r = report.result;
  REQUIRE(r.points.size() > 1);
  // Another point declared the failure-aware best: the text and JSON name the move.
  r.failures->best = r.best == 0 ? 1 : 0;
  const sim::TrainingPoint& from = r.points[r.best];
  const sim::TrainingPoint& to = r.points[r.failures->best];
  const std::string text = training_time_text(report);
  CHECK(text.find(fmt::format("moved from the failure-free shortest ({} GPUs, batch {}: ",
                              from.gpus, from.batch)) != std::string::npos);
  const nlohmann::ordered_json moved = training_time_json(report)["failures"]["moved"];
  CHECK(moved["same_point"] == false);
  CHECK(moved["gpus_from"] == from.gpus);
  CHECK(moved["gpus_to"] == to.gpus);
  CHECK(moved["batch_to"] == to.batch);
}

}  // namespace trainsim::reports
