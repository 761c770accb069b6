// The raw CSV writer: what trainsim-calibrate writes reads back through the parser unchanged,
// and bad environment lines are refused.

#include <doctest/doctest.h>

#include <sstream>
#include <vector>

#include "calibrate/raw_measurements.hpp"
#include "calibrate/raw_writer.hpp"

namespace trainsim::calibrate {
namespace {

std::vector<RawMeasurement> one_of_each() {
  std::vector<RawMeasurement> rows;
  RawMeasurement g;
  g.benchmark = Benchmark::gemm;
  g.dtype = DType::tf32;
  g.m = 1000;
  g.n = 3000;
  g.k = 127;
  g.batch = 3;
  g.flops = Flops::of(2.0 * 1000 * 3000 * 127 * 3);
  g.algorithm = "shape:NT";
  g.time = Time::from_us(123.456);
  g.repetitions = 40;
  g.verified = true;
  rows.push_back(g);
  RawMeasurement m;
  m.benchmark = Benchmark::elementwise;
  m.bytes = Bytes::of(1 << 20);
  m.bytes_moved = Bytes::of(3 << 20);
  m.algorithm = "accumulate_fp32";
  m.time = Time::from_us(2.5);
  m.repetitions = 200;
  m.verified = true;
  rows.push_back(m);
  RawMeasurement l;
  l.benchmark = Benchmark::launch;
  l.time = Time::from_us(2.1);
  l.repetitions = 20;
  rows.push_back(l);  // not verified
  RawMeasurement c;
  c.benchmark = Benchmark::all_gather;
  c.bytes = Bytes::of(32);
  c.group_size = 8;
  c.tier = Tier::intra_node;
  c.algorithm = "nccl 2.28.3, algbw 1 GB/s";  // the comma must not split the cell
  c.time = Time::from_us(11.0);
  c.repetitions = 20;
  c.verified = true;
  rows.push_back(c);
  RawMeasurement i = g;
  i.benchmark = Benchmark::gemm_during_collective;
  i.dtype = DType::bf16;
  i.batch = 1;
  i.flops = Flops::of(2.0 * 1000 * 3000 * 127);
  rows.push_back(i);
  return rows;
}

TEST_CASE("written rows read back with every field and the environment") {
  const std::vector<RawMeasurement> rows = one_of_each();
  std::ostringstream out;
  write_raw_measurements(out, {{"gpu", "NVIDIA H100 80GB HBM3"}, {"nccl", "2.28.3"}}, rows);
  std::istringstream in(out.str());
  const RawMeasurements back = parse_raw_measurements(in, "raw.csv");
  CHECK(back.environment.at("gpu") == "NVIDIA H100 80GB HBM3");
  CHECK(back.environment.at("nccl") == "2.28.3");
  REQUIRE(back.rows.size() == rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    CAPTURE(r);
    const RawMeasurement& a = rows[r];
    const RawMeasurement& b = back.rows[r];
    CHECK(b.benchmark == a.benchmark);
    CHECK(b.time.seconds() == doctest::Approx(a.time.seconds()).epsilon(1e-9));
    CHECK(b.repetitions == a.repetitions);
    CHECK(b.verified == a.verified);
    CHECK(b.bytes == a.bytes);
    CHECK(b.bytes_moved == a.bytes_moved);
    CHECK(b.group_size == a.group_size);
    CHECK(b.tier == a.tier);
    if (a.benchmark == Benchmark::gemm || a.benchmark == Benchmark::gemm_during_collective) {
      CHECK(b.dtype == a.dtype);
      CHECK(b.m == a.m);
      CHECK(b.n == a.n);
      CHECK(b.k == a.k);
      CHECK(b.batch == a.batch);
      CHECK(b.flops.count() == doctest::Approx(a.flops.count()));
    }
  }
  CHECK(back.rows[0].algorithm == "shape:NT");
  CHECK(back.rows[3].algorithm == "nccl 2.28.3; algbw 1 GB/s");
}

TEST_CASE("environment keys and values that would break the file are refused") {
  std::ostringstream out;
  CHECK_THROWS_WITH_AS(write_raw_measurements(out, {{"a:b", "x"}}, {}),
                       "environment key 'a:b': must be non-empty, without ':' or newlines",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(write_raw_measurements(out, {{"gpu", "x\ny"}}, {}),
                       "environment value of 'gpu': must not contain newlines",
                       std::invalid_argument);
}

}  // namespace
}  // namespace trainsim::calibrate
