// validate-run on a synthetic measurement: every GEMM and kernel of the rank "measured" at
// 1.25x its prediction, so every signed error must be exactly -20 %; MEASURED.json round trip
// and its error messages.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "models/errors.hpp"
#include "reports/measured_run_json.hpp"
#include "reports/run_validation.hpp"
#include "reports/scenario_run.hpp"
#include "sim/compute_model.hpp"

namespace trainsim::reports {
namespace {

constexpr double kSlowdown = 1.25;

const ScenarioRun& tiny_run() {
  static const ScenarioRun run = run_scenario_file(std::filesystem::path(TRAINSIM_SOURCE_ROOT) /
                                                   "scenarios/tests/tiny-tp2-dp2.yaml");
  return run;
}

MeasuredRun synthetic(const ScenarioRun& run) {
  MeasuredRun m;
  m.scenario = run.scenario.name;
  m.hardware = run.scenario.hardware;
  m.rank = 0;
  m.device = "synthetic";
  m.warmup = 1;
  m.repetitions = 3;
  const program::RankProgram& rank = run.program.ranks.front();
  for (const program::Op& op : rank.ops) {
    if (!op.is_compute()) continue;
    const double t = sim::compute_time(op, run.hardware).seconds() * kSlowdown;
    m.ops.push_back(
        {std::string(run.program.names.name(op.name)),
         std::holds_alternative<program::Gemm>(op.payload) ? OpClass::gemm : OpClass::kernel,
         op.tag, program::Stream::compute, t});
    m.iteration_seconds += t;
  }
  // A collective of a group of one, timed: not part of the compute comparison.
  m.ops.push_back({"tp.all_reduce", OpClass::collective, {}, program::Stream::tp, 1.0});
  m.skipped.push_back({"tp.all_reduce", "tensor", 8});
  return m;
}

TEST_CASE("validate-run: a uniform 1.25x slowdown reads -20 % in every row") {
  const ScenarioRun& run = tiny_run();
  REQUIRE(run.program.ranks.front().rank == 0);
  const MeasuredRun measured = synthetic(run);
  const RunValidation v =
      validate_run(measured, run.program, run.hardware, run.result.iteration_time);
  REQUIRE(v.by_class.size() == 2);
  for (const auto* rows : {&v.by_class, &v.by_name, &v.by_layer}) {
    for (const ValidationRow& row : *rows) {
      INFO(row.key);
      REQUIRE(row.signed_error().has_value());
      CHECK(*row.signed_error() == doctest::Approx(-0.2));
      CHECK(row.predicted_ops == row.measured_ops);
    }
  }
  CHECK(*v.iteration.signed_error() == doctest::Approx(-0.2));
  // Layers 0 and 1 of the tiny model, then the embedding, loss and optimizer.
  REQUIRE(v.by_layer.size() == 3);
  CHECK(v.by_layer[0].key == "layer 0");
  CHECK(v.by_layer[2].key == "outside layers");
  CHECK(v.simulated_iteration_s > v.iteration.predicted_s);  // communication on top
  const std::string text = format_run_validation(v);
  CHECK(text.find("-20.0 %") != std::string::npos);
  CHECK(text.find("8 collectives and transfers per iteration were skipped") != std::string::npos);
}

TEST_CASE("validate-run: an op measured slower moves its class and layer, not the others") {
  const ScenarioRun& run = tiny_run();
  MeasuredRun measured = synthetic(run);
  // Undo the slowdown on GEMMs only: GEMM rows read 0 %, kernels still -20 %.
  for (MeasuredOp& op : measured.ops) {
    if (op.op_class == OpClass::gemm) op.seconds /= kSlowdown;
  }
  const RunValidation v =
      validate_run(measured, run.program, run.hardware, run.result.iteration_time);
  CHECK(*v.by_class[0].signed_error() == doctest::Approx(0.0).epsilon(1e-12));
  CHECK(*v.by_class[1].signed_error() == doctest::Approx(-0.2));
}

TEST_CASE("validate-run: a rank without a recorded Program is an error") {
  const ScenarioRun& run = tiny_run();
  MeasuredRun measured = synthetic(run);
  measured.rank = 3;  // tiny-tp2-dp2 records rank 0 only
  CHECK_THROWS_AS(validate_run(measured, run.program, run.hardware, run.result.iteration_time),
                  std::invalid_argument);
}

TEST_CASE("MEASURED.json: round trip, deterministic, errors name the field") {
  const MeasuredRun measured = synthetic(tiny_run());
  const std::string text = measured_run_to_json(measured);
  const MeasuredRun back = measured_run_from_json(text, "m.json");
  CHECK(measured_run_to_json(back) == text);
  CHECK(back.ops.size() == measured.ops.size());
  CHECK(back.ops.back().stream == program::Stream::tp);

  std::string bad_class = text;
  bad_class.replace(bad_class.find("\"gemm\""), 6, "\"gemn\"");
  CHECK_THROWS_WITH_AS(measured_run_from_json(bad_class, "m.json"),
                       doctest::Contains("is not one of gemm, kernel, collective, p2p"),
                       ConfigError);
  std::string missing = text;
  missing.replace(missing.find("\"time_s\"", missing.find("\"ops\"")), 8, "\"time_x\"");
  CHECK_THROWS_WITH_AS(measured_run_from_json(missing, "m.json"),
                       doctest::Contains("ops[0].time_s is missing"), ConfigError);
  CHECK_THROWS_AS(measured_run_from_json("{", "m.json"), ConfigError);
}

}  // namespace
}  // namespace trainsim::reports
