// Numeric proofs of the executor on the cpu backend (fp64): partitioned = one device, and the
// one-device backward agrees with finite differences.
#include <doctest/doctest.h>

#include <random>
#include <thread>

#include "models/cpu_communicator.hpp"
#include "models/equivalence_check.hpp"

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
      const EquivalenceReport r = check_against_single_device(m, plan, training, rng());
      CAPTURE(r.loss_error);
      CAPTURE(r.max_gradient_error);
      CAPTURE(r.max_value_error);
      CHECK(r.ranks == tp * dp);
      CHECK(r.parameters.size() == static_cast<std::size_t>(4 + 12 * m.layers));
      CHECK(r.loss_single > 0.0);
      CHECK(r.passed);
      CHECK(r.max_error < 1e-9);
    }
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
