#include <doctest/doctest.h>

#include <algorithm>
#include <limits>

#include "models/build_program.hpp"
#include "models/errors.hpp"
#include "models/program_size.hpp"

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

TEST_CASE("Programs of more GPUs than this machine can hold are TooLargeToRecord, an Infeasible") {
  // Searches tell it apart: the layout exists, only this machine cannot replay it.
  ParallelPlan plan;
  TrainingSpec training;
  training.global_batch = 8;
  training.micro_batch = 1;
  const std::int64_t gpus = 1'000'000'000;
  CHECK_THROWS_WITH_AS(check_recorded_size(model(4, 64, 16), plan, training, gpus),
                       doctest::Contains("recording the Programs of 1000000000 GPUs"),
                       TooLargeToRecord);
  CHECK_THROWS_AS(check_recorded_size(model(4, 64, 16), plan, training, gpus), Infeasible);
  CHECK_NOTHROW(check_recorded_size(model(4, 64, 16), plan, training, 1));
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

TEST_CASE("the op estimate bounds what a GPU records, for 1D (with TP overlap's rings) and grids") {
  struct Case {
    TensorKind kind;
    std::int64_t size, depth;
    bool ring = false;
  };
  for (const Case c : {Case{TensorKind::one_d, 2, 1}, Case{TensorKind::one_d, 8, 1, true},
                       Case{TensorKind::two_d, 4, 1}, Case{TensorKind::two_d, 16, 1},
                       Case{TensorKind::two_and_half_d, 8, 2}}) {
    for (const Recompute rc : {Recompute::none, Recompute::full}) {
      CAPTURE(to_string(c.kind));
      CAPTURE(c.size);
      CAPTURE(to_string(rc));
      ParallelPlan plan;
      plan.tensor.kind = c.kind;
      plan.tensor.size = c.size;
      plan.tensor.depth = c.depth;
      plan.tensor.sequence_parallel = c.ring;
      plan.tensor.comm_overlap = c.ring;
      CAPTURE(c.ring);
      plan.recompute = rc;
      TrainingSpec training;
      training.micro_batch = 8;
      training.global_batch = 16;
      const ModelSpec m = model(3, 128, 16);
      const program::Program p = build_program(m, plan, training, ProgramScope::representative);
      std::size_t most = 0;
      for (const program::RankProgram& r : p.ranks)
        most = std::max(most, r.ops.size());
      const double estimate = estimated_ops_per_gpu(m, plan, training);
      // The layers' ops are bounded; embedding, loss and optimizer add a layer's worth at most.
      CHECK(static_cast<double>(most) <= estimate * 4.0 / 3.0);
      CHECK(estimate <= 4.0 * static_cast<double>(most));
    }
  }
}

TEST_CASE("GEMM dimensions are 32-bit: Gemm::of checks the range, products stay 64-bit") {
  const std::int64_t max = std::numeric_limits<program::Gemm::Dim>::max();
  const program::Gemm g = program::Gemm::of(max, 2, 3, 1);
  CHECK(g.m == max);
  CHECK(g.n == 2);
  CHECK(g.k == 3);
  // m·k + k·n + m·n in 64 bits: 2 bytes per element x (3 max + 6 + 2 max).
  CHECK(g.min_bytes() == Bytes::of(2 * (5 * max + 6)));
  CHECK(g.flops() == Flops::of(2.0 * static_cast<double>(max) * 6.0));
  CHECK_THROWS_WITH_AS(program::Gemm::of(1, max + 1, 1, 1),
                       "GEMM dimension n = 2147483648 is outside 0 to 2147483647", Infeasible);
  CHECK_THROWS_AS(program::Gemm::of(1, 1, 1, -1), Infeasible);
}
