// 3D (Bian et al., ColossalAI parallel_3d) tensor parallelism on a q x q x q cube: the cpu
// backend in fp64 equals one device (loss, every gradient of every rank, parameters after
// Adam), with data parallelism, recomputation, ZeRO and every cube order.
#include <doctest/doctest.h>

#include <random>

#include "equivalence_asserts.hpp"
#include "models/equivalence_check.hpp"

using namespace trainsim;

namespace {

struct CubeCase {
  std::int64_t dp = 1;
  Recompute recompute = Recompute::none;
  int zero = 0;
  GridOrder order = GridOrder::weight_major;
  std::int64_t q = 2;
};

// Runs the check on a random model and asserts that it passes; returns the largest relative
// gradient error.
double check_cube(const CubeCase& c, std::mt19937_64& rng) {
  const std::int64_t q = c.q;
  const ModelSpec m = test::random_grid_model(rng, q, q * q);
  TrainingSpec training;
  training.micro_batch = q * q * (1 + static_cast<std::int64_t>(rng() % 2));
  const std::int64_t micro_batches = 1 + static_cast<std::int64_t>(rng() % 2);
  training.global_batch = training.micro_batch * c.dp * micro_batches;
  ParallelPlan plan;
  plan.tensor.kind = TensorKind::three_d;
  plan.tensor.size = q * q * q;
  plan.tensor.grid_order = c.order;
  plan.data.size = c.dp;
  plan.data.zero = c.zero;
  plan.data.overlap_grad_reduce = (rng() % 2) == 0;
  plan.recompute = c.recompute;
  CAPTURE(c.q);
  CAPTURE(c.dp);
  CAPTURE(c.zero);
  CAPTURE(to_string(c.recompute));
  CAPTURE(to_string(c.order));
  return test::check_random_model(m, plan, training, rng()).max_gradient_error;
}

}  // namespace

TEST_CASE("cpu: 3D cube (q 2) x DP equals one device in fp64 in every cube order") {
  std::mt19937_64 rng(20240801);
  for (const std::int64_t dp : {1, 2}) {
    check_cube({dp, Recompute::none, 0, GridOrder::weight_major}, rng);
  }
  // The order only moves cells between GPUs: the numbers must not change.
  check_cube({1, Recompute::none, 0, GridOrder::input_major}, rng);
  check_cube({1, Recompute::none, 0, GridOrder::output_major}, rng);
}

TEST_CASE("cpu: 3D with recomputation and ZeRO 1-3 equals one device in fp64") {
  std::mt19937_64 rng(20240802);
  check_cube({2, Recompute::selective, 1, GridOrder::weight_major}, rng);
  check_cube({1, Recompute::full, 1, GridOrder::output_major}, rng);
  check_cube({2, Recompute::full, 2, GridOrder::input_major}, rng);
  check_cube({2, Recompute::selective, 3, GridOrder::weight_major}, rng);
  check_cube({1, Recompute::none, 3, GridOrder::weight_major}, rng);
}

TEST_CASE("cpu: 3D cube q 3 (27 ranks) with ZeRO-1 and selective recomputation equals one device") {
  std::mt19937_64 rng(20240803);
  check_cube({1, Recompute::selective, 1, GridOrder::input_major, 3}, rng);
}
