// 2D (Optimus / SUMMA) and 2.5D (Tesseract) tensor parallelism: the cpu backend in fp64 equals
// one device (loss, every gradient of every rank, parameters after Adam).
#include <doctest/doctest.h>

#include <random>

#include "equivalence_asserts.hpp"
#include "models/equivalence_check.hpp"

using namespace trainsim;

namespace {

struct GridCase {
  TensorKind kind;
  std::int64_t q;
  std::int64_t depth;
  std::int64_t dp;
};

// Runs the check on a random model and asserts that it passes.
void check_case(const GridCase& c, std::mt19937_64& rng, Recompute recompute, int zero,
                GridOrder order) {
  const ModelSpec m = test::random_grid_model(rng, c.q, c.q);
  TrainingSpec training;
  training.micro_batch = c.q * c.depth * (1 + static_cast<std::int64_t>(rng() % 2));
  const std::int64_t micro_batches = 1 + static_cast<std::int64_t>(rng() % 2);
  training.global_batch = training.micro_batch * c.dp * micro_batches;
  ParallelPlan plan;
  plan.tensor.kind = c.kind;
  plan.tensor.size = c.q * c.q * c.depth;
  plan.tensor.depth = c.depth;
  plan.tensor.grid_order = order;
  plan.data.size = c.dp;
  plan.data.zero = zero;
  plan.data.overlap_grad_reduce = (rng() % 2) == 0;
  plan.recompute = recompute;
  test::check_random_model(m, plan, training, rng());
}

}  // namespace

TEST_CASE("cpu: 2D SUMMA (q 2, 3) x DP equals one device in fp64") {
  std::mt19937_64 rng(20240701);
  for (std::int64_t q : {2, 3}) {
    for (std::int64_t dp : {1, 2}) {
      CAPTURE(q);
      CAPTURE(dp);
      check_case({TensorKind::two_d, q, 1, dp}, rng, Recompute::none, 0, GridOrder::row_major);
    }
  }
}

TEST_CASE("cpu: 2.5D Tesseract (q 2, depth 2) x DP equals one device in fp64") {
  std::mt19937_64 rng(20240702);
  for (std::int64_t dp : {1, 2}) {
    for (GridOrder order : {GridOrder::row_major, GridOrder::depth_major}) {
      CAPTURE(dp);
      CAPTURE(to_string(order));
      check_case({TensorKind::two_and_half_d, 2, 2, dp}, rng, Recompute::none, 0, order);
    }
  }
}

TEST_CASE("cpu: 2D and 2.5D with recomputation and ZeRO-1 equal one device in fp64") {
  std::mt19937_64 rng(20240703);
  int runs = 0;
  for (const GridCase c :
       {GridCase{TensorKind::two_d, 2, 1, 2}, GridCase{TensorKind::two_and_half_d, 2, 2, 1}}) {
    for (Recompute rc : {Recompute::selective, Recompute::full}) {
      for (int zero : {0, 1}) {
        CAPTURE(to_string(c.kind));
        CAPTURE(to_string(rc));
        CAPTURE(zero);
        check_case(c, rng, rc, zero, GridOrder::column_major);
        ++runs;
      }
    }
  }
  CHECK(runs == 8);
}

TEST_CASE("cpu: 2D and 2.5D with ZeRO 2 and 3 equal one device in fp64") {
  // The gradient group (DP; 2.5D: depth x DP) shards each grid cell's gradients (2) and
  // parameters (3); also with one member (a local add into the shard).
  std::mt19937_64 rng(20240704);
  int runs = 0;
  for (const GridCase c :
       {GridCase{TensorKind::two_d, 2, 1, 1}, GridCase{TensorKind::two_d, 2, 1, 2},
        GridCase{TensorKind::two_and_half_d, 2, 2, 1},
        GridCase{TensorKind::two_and_half_d, 2, 2, 2}}) {
    for (int zero : {2, 3}) {
      const Recompute rc = (runs % 3 == 0)   ? Recompute::none
                           : (runs % 3 == 1) ? Recompute::selective
                                             : Recompute::full;
      CAPTURE(to_string(c.kind));
      CAPTURE(c.dp);
      CAPTURE(to_string(rc));
      CAPTURE(zero);
      check_case(c, rng, rc, zero,
                 c.kind == TensorKind::two_d ? GridOrder::column_major : GridOrder::depth_major);
      ++runs;
    }
  }
  CHECK(runs == 8);
}
