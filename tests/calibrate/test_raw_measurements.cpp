// The raw measurement CSV: what is read, and errors that name file, line, column, the value
// and what is valid.

#include <doctest/doctest.h>

#include <sstream>

#include "calibrate/raw_measurements.hpp"
#include "models/errors.hpp"

namespace trainsim::calibrate {
namespace {

constexpr std::string_view kHeader =
    "benchmark,dtype,m,n,k,batch,bytes,group_size,tier,algorithm,time_s,repetitions,flops,"
    "bytes_moved,verified\n";

RawMeasurements parse(std::string_view body, std::string_view header = kHeader) {
  std::istringstream in(std::string(header) + std::string(body));
  return parse_raw_measurements(in, "raw.csv");
}

TEST_CASE("rows of every kind are read with their fields") {
  const RawMeasurements raw = parse(
      "gemm,bf16,4096,2048,1024,2,,,,algo 21,1.5e-4,50,34359738368,,yes\n"
      "all_reduce,,,,,,1048576,8,intra_node,ring,2.5e-5,20,,,no\n"
      "send_recv,,,,,,4096,,inter_node,,1e-5,20,,,yes\n"
      "memcpy,,,,,,1024,,,,1e-6,100,,2048,yes\n",
      "# date: 2026-11-21\n# driver: 550.54\n" + std::string(kHeader));
  REQUIRE(raw.rows.size() == 4);
  CHECK(raw.environment.at("date") == "2026-11-21");
  CHECK(raw.environment.at("driver") == "550.54");
  const RawMeasurement& g = raw.rows[0];
  CHECK(g.benchmark == Benchmark::gemm);
  CHECK(g.m == 4096);
  CHECK(g.batch == 2);
  CHECK(g.algorithm == "algo 21");
  CHECK(g.time.seconds() == doctest::Approx(1.5e-4));
  CHECK(g.line == 4);
  const RawMeasurement& c = raw.rows[1];
  CHECK(c.bytes == Bytes::of(1048576));
  CHECK(c.group_size == 8);
  CHECK(c.tier == Tier::intra_node);
  CHECK_FALSE(c.verified);
  CHECK(raw.rows[2].group_size == 2);
  CHECK(raw.rows[2].tier == Tier::inter_node);
  CHECK(raw.rows[3].bytes_moved == Bytes::of(2048));
}

TEST_CASE("attention rows: sequence, head dim, batch x heads, the causal FLOPs") {
  // 2·64·128·2048·2049 = 68 753 031 168 causal FLOPs; the backward 2.5x.
  const RawMeasurements raw = parse(
      "attention,bf16,2048,,128,64,,,,cudnn,1.4e-4,50,68753031168,,no\n"
      "attention_backward,bf16,2048,2048,128,64,,,,cudnn,5e-4,50,,,no\n");
  REQUIRE(raw.rows.size() == 2);
  CHECK(raw.rows[0].benchmark == Benchmark::attention);
  CHECK(raw.rows[0].n == 2048);  // square: n = m
  CHECK(raw.rows[0].flops.count() == doctest::Approx(68753031168.0));
  CHECK(raw.rows[1].benchmark == Benchmark::attention_backward);
  CHECK(raw.rows[1].flops.count() == doctest::Approx(2.5 * 68753031168.0));
  CHECK_THROWS_WITH_AS(parse("attention,bf16,2048,,128,64,,,,,1e-4,5,68719476736,,no\n"),
                       doctest::Contains("flops: expected the causal count 68753031168"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse("attention,fp32,2048,,128,64,,,,,1e-4,5,,,no\n"),
                       doctest::Contains("dtype: expected bf16 or fp16, got 'fp32'"), ConfigError);
  CHECK_THROWS_WITH_AS(parse("attention,bf16,2048,1024,128,64,,,,,1e-4,5,,,no\n"),
                       doctest::Contains("n: expected empty or m (2048)"), ConfigError);
  CHECK_THROWS_WITH_AS(parse("attention,bf16,2048,,4096,64,,,,,1e-4,5,,,no\n"),
                       doctest::Contains("k: expected an integer in 1..1024"), ConfigError);
  CHECK_THROWS_WITH_AS(parse("attention_backward,bf16,2048,,128,,,,,,1e-4,5,,,no\n"),
                       doctest::Contains("batch: expected a value"), ConfigError);
}

TEST_CASE("bad cells name file, line, column, the value and what is valid") {
  CHECK_THROWS_WITH_AS(parse("gem,bf16,1,1,1,1,,,,,1e-3,1,,,yes\n"),
                       doctest::Contains("raw.csv:2:1: benchmark: expected one of gemm, memcpy"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse("gemm,bf16,1,1,1,1,,,,,-3,1,,,yes\n"),
                       "raw.csv:2:23: time_s: expected a positive number up to 86400, got '-3'",
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse("gemm,bf17,1,1,1,1,,,,,1,1,,,yes\n"),
                       doctest::Contains("raw.csv:2:6: dtype: expected one of fp64"), ConfigError);
  CHECK_THROWS_WITH_AS(parse("gemm,bf16,1,1,1,1,,,,,1,1,,,maybe\n"),
                       doctest::Contains("verified: expected yes or no, got 'maybe'"), ConfigError);
  CHECK_THROWS_WITH_AS(parse("gemm,bf16,2,2,2,1,,,,,1,1,17,,yes\n"),
                       doctest::Contains("flops: expected 2·m·n·k·batch = 16"), ConfigError);
  CHECK_THROWS_WITH_AS(
      parse("all_reduce,,,,,,1024,8,,,1,1,,,yes\n"),
      doctest::Contains("tier: expected a value (benchmark all_reduce needs tier)"), ConfigError);
  CHECK_THROWS_WITH_AS(
      parse("all_reduce,,,,,,1024,8,rack,,1,1,,,yes\n"),
      doctest::Contains("tier: expected one of intra_node, inter_node, got 'rack'"), ConfigError);
  CHECK_THROWS_WITH_AS(parse("all_reduce,,,,,,1024,1,intra_node,,1,1,,,yes\n"),
                       doctest::Contains("group_size: expected an integer in 2..1048576, got '1'"),
                       ConfigError);
  // Found by fuzzing: a time no benchmark takes overflowed the time type, and m = n = k near
  // int64's maximum reached a GEMM's int32 dimensions.
  CHECK_THROWS_WITH_AS(parse("gemm,bf16,2,2,2,1,,,,,1e308,1,,,yes\n"),
                       doctest::Contains("time_s: expected a positive number up to 86400"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse("gemm,bf16,9223372036854775807,2,2,1,,,,,1,1,,,yes\n"),
                       doctest::Contains("m: expected an integer in 1..2147483647"), ConfigError);
  CHECK_THROWS_WITH_AS(parse("memcpy,,,,,,,,,,1,1,,,yes\n"),
                       doctest::Contains("bytes_moved: expected a value"), ConfigError);
  CHECK_THROWS_WITH_AS(parse("gemm,bf16,1,1\n"),
                       "raw.csv:2:1: expected 15 cells as in the header, got 4", ConfigError);
}

TEST_CASE("the header must name every column once and nothing else") {
  CHECK_THROWS_WITH_AS(parse("", "benchmark,dtype\n"),
                       doctest::Contains("raw.csv:1:1: missing column 'm'"), ConfigError);
  CHECK_THROWS_WITH_AS(parse("", std::string(kHeader.substr(0, kHeader.size() - 1)) + ",gpu\n"),
                       doctest::Contains("unknown column 'gpu'; the columns are benchmark"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse("", ""), doctest::Contains("no header line"), ConfigError);
}

}  // namespace
}  // namespace trainsim::calibrate
