// Numeric proofs of the executor on the cpu backend (fp64): partitioned = one device, and the
// one-device backward agrees with finite differences.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <thread>

#include "equivalence_asserts.hpp"
#include "models/cpu_backend.hpp"
#include "models/cpu_communicator.hpp"
#include "models/equivalence_check.hpp"
#include "models/transformer.hpp"
#include "models/train_step.hpp"

using namespace trainsim;

namespace {

// Random small GPT: hidden = heads x head_dim, vocab a multiple of the TP size.
ModelSpec random_model(std::mt19937_64& rng, std::int64_t tp) {
  const auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  const std::int64_t heads_choices[] = {2, 4, 8};
  ModelSpec m;
  m.heads = heads_choices[pick(0, 2)];
  while (m.heads % tp != 0)
    m.heads *= 2;
  m.hidden = m.heads * pick(2, 4);
  m.ffn = 4 * m.hidden;
  m.layers = pick(1, 3);
  m.seq_len = pick(8, 32);
  m.vocab = tp * pick(4, 12);
  m.vocab_divisor = 1;
  return m;
}

}  // namespace

TEST_CASE("cpu communicator: all-reduce, all-gather, reduce-scatter and broadcast") {
  CpuCommunicator comm;
  const std::vector<std::int64_t> group{0, 1, 2};
  std::vector<std::vector<double>> reduced(3), gathered(3), scattered(3), broadcast(3);
  {
    std::vector<std::jthread> threads;
    for (std::int64_t r = 0; r < 3; ++r) {
      threads.emplace_back([&, r] {
        const auto i = static_cast<std::size_t>(r);
        reduced[i] = {1.0 * static_cast<double>(r), 10.0};
        comm.all_reduce(group, r, reduced[i], ReduceOp::sum);
        const std::vector<double> in{static_cast<double>(r)};
        gathered[i].assign(3, 0.0);
        comm.all_gather(group, r, in, gathered[i]);
        const std::vector<double> rs{1.0, 2.0, 3.0};
        scattered[i].assign(1, 0.0);
        comm.reduce_scatter(group, r, rs, scattered[i]);
        broadcast[i] = {static_cast<double>(r) + 5.0};
        comm.broadcast(group, r, 2, broadcast[i]);
      });
    }
  }
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(reduced[i] == std::vector<double>{3.0, 30.0});
    CHECK(gathered[i] == std::vector<double>{0.0, 1.0, 2.0});
    CHECK(scattered[i][0] == 3.0 * static_cast<double>(i + 1));
    CHECK(broadcast[i][0] == 7.0);
  }
}

TEST_CASE("cpu: partitioned TP x DP training step equals one device in fp64") {
  std::mt19937_64 rng(20240611);
  for (std::int64_t tp : {1, 2, 4}) {
    for (std::int64_t dp : {1, 2}) {
      const ModelSpec m = random_model(rng, tp);
      TrainingSpec training;
      training.micro_batch = 1 + static_cast<std::int64_t>(rng() % 2);
      const std::int64_t micro_batches = 2 + static_cast<std::int64_t>(rng() % 2);
      training.global_batch = training.micro_batch * dp * micro_batches;
      ParallelPlan plan;
      plan.tensor.size = tp;
      plan.data.size = dp;
      plan.data.overlap_grad_reduce = (rng() % 2) == 0;
      CAPTURE(tp);
      CAPTURE(dp);
      CAPTURE(m.layers);
      CAPTURE(m.hidden);
      CAPTURE(m.heads);
      CAPTURE(m.seq_len);
      CAPTURE(m.vocab);
      CAPTURE(training.micro_batch);
      CAPTURE(micro_batches);
      test::check_matches_single_device(check_against_single_device(m, plan, training, rng()),
                                        tp * dp, m.layers);
    }
  }
}

namespace {

struct GridCase {
  std::int64_t tp = 1;
  bool sp = false;
  Recompute recompute = Recompute::none;
  int zero = 0;
  std::int64_t dp = 1;
  std::int64_t micro_batches = 1;  ///< per replica
  std::int64_t max_layers = 2;
  bool overlap_param_gather = false;
  bool tp_comm_overlap = false;
};

// One partitioned run of a random small model against one device, checked.
void check_grid_case(std::mt19937_64& rng, const GridCase& c) {
  ModelSpec m = random_model(rng, c.tp);
  m.layers = 1 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(c.max_layers));
  m.seq_len = c.tp * (2 + static_cast<std::int64_t>(rng() % 4));
  TrainingSpec training;
  training.micro_batch = 1 + static_cast<std::int64_t>(rng() % 2);
  training.global_batch = training.micro_batch * c.dp * c.micro_batches;
  ParallelPlan plan;
  plan.tensor.size = c.tp;
  plan.tensor.sequence_parallel = c.sp;
  plan.recompute = c.recompute;
  plan.data.size = c.dp;
  plan.data.zero = c.zero;
  plan.data.overlap_grad_reduce = (rng() % 2) == 0;
  plan.data.overlap_param_gather = c.overlap_param_gather;
  plan.tensor.comm_overlap = c.tp_comm_overlap;
  CAPTURE(c.tp);
  CAPTURE(c.tp_comm_overlap);
  CAPTURE(c.sp);
  CAPTURE(static_cast<int>(c.recompute));
  CAPTURE(c.zero);
  CAPTURE(c.dp);
  CAPTURE(c.micro_batches);
  CAPTURE(plan.data.overlap_grad_reduce);
  CAPTURE(plan.data.overlap_param_gather);
  CAPTURE(m.layers);
  CAPTURE(m.hidden);
  CAPTURE(m.seq_len);
  CAPTURE(m.vocab);
  test::check_matches_single_device(check_against_single_device(m, plan, training, rng()),
                                    c.tp * c.dp, m.layers);
}

}  // namespace

TEST_CASE("cpu: SP x recompute x ZeRO x TP {2,4} x DP {1,2} equals one device in fp64") {
  // DP 1 included: ZeRO 2 and 3 then "reduce" and "gather" locally.
  std::mt19937_64 rng(20240612);
  int runs = 0;
  for (std::int64_t tp : {2, 4}) {
    for (bool sp : {false, true}) {
      for (Recompute rc : {Recompute::none, Recompute::selective, Recompute::full}) {
        for (int zero : {0, 1, 2, 3}) {
          for (std::int64_t dp : {1, 2}) {
            // Every combination for TP 2; a random half for TP 4 keeps the run short.
            if (tp == 4 && (rng() % 2) == 0) continue;
            const std::int64_t micro_batches = 1 + static_cast<std::int64_t>(rng() % 2);
            check_grid_case(rng, {tp, sp, rc, zero, dp, micro_batches, 2});
            ++runs;
          }
        }
      }
    }
  }
  CHECK(runs >= 48);
}

TEST_CASE("cpu: ZeRO 0-3 x TP {1,2} x DP {2,4} x SP x recompute equals one device in fp64") {
  // Every combination; odd runs accumulate over 2 or 3 micro batches per replica (ZeRO 2 and 3
  // then reduce-scatter, and ZeRO 3 gathers, in every micro batch).
  std::mt19937_64 rng(20240613);
  int runs = 0;
  int accumulated = 0;
  for (int zero : {0, 1, 2, 3}) {
    for (std::int64_t tp : {1, 2}) {
      for (bool sp : {false, true}) {
        if (sp && tp == 1) continue;
        for (Recompute rc : {Recompute::none, Recompute::selective, Recompute::full}) {
          for (std::int64_t dp : {2, 4}) {
            const std::int64_t micro_batches =
                runs % 2 == 0 ? 1 : 2 + static_cast<std::int64_t>(rng() % 2);
            // --overlap-param-gather on every other ZeRO 1 and 2 run (the rank then starts
            // with only its own chunks current: equivalence_check.cpp).
            const bool gather_ahead = (zero == 1 || zero == 2) && (runs / 2) % 2 == 0;
            check_grid_case(rng, {tp, sp, rc, zero, dp, micro_batches, 3, gather_ahead});
            ++runs;
            if (micro_batches > 1 && zero >= 2) ++accumulated;
          }
        }
      }
    }
  }
  CHECK(runs == 4 * 3 * 3 * 2);
  CHECK(accumulated == 18);
}

TEST_CASE("cpu: TP communication overlap's ring exchanges (TP 2, 4, 8 x SP) equal one device") {
  // Column linears gather their input shard by shard, row linears reduce-scatter by a ring
  // of partial sums: the same products, summed in ring order.
  std::mt19937_64 rng(20261126);
  int runs = 0;
  for (std::int64_t tp : {2, 4, 8}) {
    for (Recompute rc : {Recompute::none, Recompute::selective, Recompute::full}) {
      const int zero = runs % 3;
      const std::int64_t dp = runs % 2 == 0 ? 1 : 2;
      check_grid_case(rng, {tp, true, rc, zero, dp, 1 + runs % 2, 3, zero == 1, true});
      ++runs;
    }
  }
  CHECK(runs == 9);
}

TEST_CASE("cpu: recomputation gives the same gradients as none (< 1e-12 relative)") {
  const ModelSpec m = test::model_spec(2, 16, 4, 64, 8, 20);
  const auto reference = test::single_device_loss_and_gradients(m, 2, Recompute::none);
  for (Recompute rc : {Recompute::selective, Recompute::full}) {
    CAPTURE(static_cast<int>(rc));
    test::check_close_tensors(test::single_device_loss_and_gradients(m, 2, rc), reference, 1e-12);
  }
}

TEST_CASE("cpu: single-device gradients agree with central finite differences") {
  ModelSpec m;
  m.layers = 2;
  m.hidden = 8;
  m.heads = 2;
  m.ffn = 32;
  m.seq_len = 6;
  m.vocab = 11;
  m.vocab_divisor = 1;
  TrainingSpec training;
  training.global_batch = 2;
  training.micro_batch = 1;
  const GradientCheckReport r = check_gradients_finite_difference(m, training, 7, 3);
  CAPTURE(r.worst);
  CHECK(r.samples == 3 * (4 + 12 * m.layers));
  CHECK(r.max_relative_error < 1e-6);
}
