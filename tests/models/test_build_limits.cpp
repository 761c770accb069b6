#include <doctest/doctest.h>

#include "models/build_program.hpp"
#include "models/errors.hpp"

using namespace trainsim;

namespace {
ModelSpec model(std::int64_t layers, std::int64_t hidden, std::int64_t seq,
                std::int64_t heads = 8) {
  ModelSpec m;
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.ffn = 4 * hidden;
  m.seq_len = seq;
  m.vocab = 1024;
  return m;
}
}  // namespace

TEST_CASE("a Program too large to record is Infeasible, with the numbers, not an OOM") {
  ParallelPlan plan;
  TrainingSpec training;
  training.global_batch = std::int64_t{1} << 30;
  training.micro_batch = 1;
  CHECK_THROWS_WITH_AS(
      build_program(model(100, 64, 16), plan, training, ProgramScope::representative),
      doctest::Contains("micro batches"), Infeasible);
}

TEST_CASE("a buffer beyond the byte counter's range is Infeasible") {
  ParallelPlan plan;
  TrainingSpec training;
  training.global_batch = 1;
  // fp32 attention scores of one layer: 4 · 2^14 heads · (2^24)^2 bytes = 2^64 > 2^62.
  CHECK_THROWS_WITH_AS(
      build_program(model(1, std::int64_t{1} << 16, std::int64_t{1} << 24, std::int64_t{1} << 14),
                    plan, training, ProgramScope::representative),
      doctest::Contains("attention scores"), Infeasible);
}
