// vTrain's whole-run CSV (inputs/run_measurements.hpp): the parser and its errors, the
// vendored file, the scenario a row describes and the held-out rule.

#include "inputs/run_measurements.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "models/errors.hpp"

namespace trainsim::inputs {
namespace {

RunMeasurements parse(std::string_view text) {
  std::istringstream in{std::string(text)};
  return parse_run_measurements(in, "runs.csv");
}

TEST_CASE("vTrain rows are read, and bad cells name file, line, column and value") {
  const RunMeasurements runs = parse(
      "# GPUs,global batch,micro batch,hidden size,attention heads,# layers,sequence length,"
      "tensor parallelism,data parallelism,pipeline parallelism,iteration time (ms)\n"
      "8,32,4,1024,16,24,1024,2,2,2,219.732754\n");
  REQUIRE(runs.rows.size() == 1);
  CHECK(runs.rows[0].tensor == 2);
  CHECK(runs.rows[0].line == 2);
  CHECK(runs.rows[0].time.ms() == doctest::Approx(219.732754));
  CHECK_THROWS_WITH_AS(parse("8,32,4,1024,16,24,1024,2,2,2,-1\n"),
                       "runs.csv:1:30: iteration time (ms): expected a positive number (ms) up to "
                       "86400000, got '-1'",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse("8,32,4.5,1024,16,24,1024,2,2,2,1\n"),
                       doctest::Contains("micro batch: expected a positive integer up to "
                                         "1073741824, got '4.5'"),
                       ConfigError);
  // Beyond a scenario key's range, or a time no run takes (fuzzing found 1e308 ms overflowing
  // the time type; int64-range cells cast from double).
  CHECK_THROWS_WITH_AS(parse("9223372036854775807,32,4,1024,16,24,1024,2,2,2,1\n"),
                       doctest::Contains("GPUs: expected a positive integer up to 1048576"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse("8,32,4,1024,16,24,1024,2,2,2,1e308\n"),
                       doctest::Contains("iteration time (ms): expected a positive number (ms) "
                                         "up to 86400000, got '1e308'"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse("8,32,4,1024,16,24,1024,2,2,1,1\n"),
                       doctest::Contains("GPUs: 8 is not tensor x data x pipeline = 2 x 2 x 1"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse("8,32,4\n"), doctest::Contains("expected 11 comma-separated cells"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse("# header only\n"), "runs.csv:1:0: no measurement rows", ConfigError);
  CHECK_THROWS_WITH_AS(read_run_measurements("/nonexistent/runs.csv"),
                       doctest::Contains("cannot open the run measurement file"), ConfigError);
}

TEST_CASE("the vendored vTrain file parses to its 1440 rows") {
  const RunMeasurements runs = read_run_measurements(std::filesystem::path(TRAINSIM_SOURCE_ROOT) /
                                                     "data/vtrain2024/vtrain_a100_single_node.csv");
  REQUIRE(runs.rows.size() == 1440);
  // The header is line 1 (no byte-order mark before its '#'); the first and last rows.
  CHECK(runs.rows.front().line == 2);
  CHECK(runs.rows.back().line == 1441);
  for (const RunMeasurement& r : runs.rows) {
    CHECK(r.gpus <= 8);
    CHECK(r.seq_len == 1024);
  }
}

TEST_CASE("a row's scenario: GPT, 1D TP without SP, 1F1B, full recomputation, no DP overlap") {
  const RunMeasurement row{8, 32, 4, 1024, 16, 24, 1024, 2, 2, 2, Time::from_ms(219.7), 7};
  const Scenario s = measured_run_scenario(row);
  CHECK(s.name == "line-7");
  CHECK(s.gpus == 8);
  CHECK(s.model.layers == 24);
  CHECK(s.model.hidden == 1024);
  CHECK(s.model.heads == 16);
  CHECK(s.model.ffn == 4096);
  CHECK(s.model.seq_len == 1024);
  CHECK(s.model.vocab == 50257);
  CHECK(s.model.vocab_divisor == 128);
  CHECK(s.model.dtype == DType::bf16);
  CHECK(s.training.global_batch == 32);
  CHECK(s.training.micro_batch == 4);
  CHECK(s.parallel.tensor.kind == TensorKind::one_d);
  CHECK(s.parallel.tensor.size == 2);
  CHECK_FALSE(s.parallel.tensor.sequence_parallel);
  CHECK(s.parallel.pipeline.size == 2);
  CHECK(s.parallel.pipeline.schedule == PipelineSchedule::one_f_one_b);
  CHECK(s.parallel.data.size == 2);
  CHECK_FALSE(s.parallel.data.overlap_grad_reduce);
  CHECK(s.parallel.recompute == Recompute::full);
}

TEST_CASE("the held-out rule takes round(n x fraction) rows spread evenly") {
  std::vector<std::size_t> held;
  for (std::size_t i = 0; i < 10; ++i) {
    if (run_held_out(i, 0.2)) held.push_back(i);
  }
  CHECK(held == std::vector<std::size_t>{4, 9});
  std::size_t of_1440 = 0;
  for (std::size_t i = 0; i < 1440; ++i)
    of_1440 += run_held_out(i, 0.2) ? 1 : 0;
  CHECK(of_1440 == 288);
  for (std::size_t i = 0; i < 10; ++i)
    CHECK_FALSE(run_held_out(i, 0.0));
}

}  // namespace
}  // namespace trainsim::inputs
