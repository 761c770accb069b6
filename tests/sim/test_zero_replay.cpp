// Replays of the executor's ZeRO Programs: memory per category at the simulated peak against
// parallelism-reference §8.1.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <variant>
#include <vector>

#include "models/build_program.hpp"
#include "sim/replay.hpp"
#include "sim_fixtures.hpp"
#include "units/doctest_printers.hpp"

using namespace trainsim;
using program::MemoryCategory;

namespace {

// A 1.3B-parameter GPT; the vocabulary is a multiple of 128 x TP (no padding).
ModelSpec model_1b() {
  return ModelSpec{
      .layers = 8, .hidden = 2048, .heads = 16, .ffn = 4 * 2048, .seq_len = 1024, .vocab = 51200};
}

double at_peak(const sim::RankMemory& m, MemoryCategory c) {
  return static_cast<double>(m.at_peak[static_cast<std::size_t>(c)].count());
}

}  // namespace

TEST_CASE("replay: ZeRO 0-3 model state at the peak is §8.1's, within 0.01 % (padding)") {
  const hw::HardwareProfile hw = test::small_profile();
  const ModelSpec m = model_1b();
  const std::int64_t tp = 2;
  const std::int64_t dp = 4;
  TrainingSpec training;
  training.micro_batch = 1;
  training.global_batch = 2 * dp;  // 2 micro batches per replica
  // Ψ: this GPU's parameters (TP shard), inside and outside the layers.
  const double h = static_cast<double>(m.hidden);
  const double layer = 12.0 * h * h / tp + 7.0 * h / tp + 6.0 * h;  // §8.4 (ffn = 4h)
  const double rest =
      static_cast<double>(m.vocab) * h / tp + static_cast<double>(m.seq_len) * h + 2.0 * h;
  const double psi = static_cast<double>(m.layers) * layer + rest;
  const double n = static_cast<double>(dp);

  // Megatron's buckets (fp32 bytes each) from ZeRO-1's reduce-scatters, in the order the
  // backward finishes them: the last holds the tied embedding, which is written first.
  std::vector<double> buckets;
  {
    ParallelPlan plan;
    plan.tensor.size = tp;
    plan.data.size = dp;
    plan.data.zero = 1;
    const program::Program p = build_program(m, plan, training, ProgramScope::representative);
    for (const program::Op& op : p.ranks[0].ops) {
      const auto* c = std::get_if<program::Collective>(&op.payload);
      if (c != nullptr && c->kind == program::CollectiveKind::reduce_scatter) {
        buckets.push_back(static_cast<double>(c->size.count()));
      }
    }
  }
  REQUIRE(buckets.size() > 2);
  const double embedding_bucket = buckets.back();
  const double largest_other = *std::max_element(buckets.begin(), buckets.end() - 1);

  std::array<double, 4> peaks{};
  for (int zero : {0, 1, 2, 3}) {
    CAPTURE(zero);
    ParallelPlan plan;
    plan.tensor.size = tp;
    plan.data.size = dp;
    plan.data.zero = zero;
    const program::Program p = build_program(m, plan, training, ProgramScope::representative);
    const sim::SimulationResult r = sim::replay(p, hw);
    const sim::RankMemory& mem = r.memory[0];
    // §8.1 with Megatron's fp32 main gradients (4 B) and K = 12 B of fp32 Adam state.
    const double params = zero >= 3 ? 2.0 * psi / n : 2.0 * psi;
    const double grads = zero >= 2 ? 4.0 * psi / n : 4.0 * psi;
    const double adam = zero >= 1 ? 12.0 * psi / n : 12.0 * psi;
    CHECK(at_peak(mem, MemoryCategory::parameters) == doctest::Approx(params).epsilon(1e-4));
    CHECK(at_peak(mem, MemoryCategory::gradients) == doctest::Approx(grads).epsilon(1e-4));
    CHECK(at_peak(mem, MemoryCategory::optimizer_state) == doctest::Approx(adam).epsilon(1e-4));
    // Transient buffers: ZeRO-2 full gradient buckets (at most the bucket that holds the tied
    // embedding, the one being filled and the one being reduce-scattered); ZeRO-3 the
    // gathered bf16 parameters and fp32 gradients of the embedding unit and two layers.
    const double buffers = at_peak(mem, MemoryCategory::comm_buffers);
    if (zero <= 1) CHECK(buffers == 0.0);
    if (zero == 2) {
      CHECK(buffers > 0.0);
      CHECK(buffers <= embedding_bucket + 2.0 * largest_other);
    }
    if (zero == 3) {
      CHECK(buffers > 0.0);
      CHECK(buffers <= (2.0 + 4.0) * (rest + 2.0 * layer));
    }
    peaks[static_cast<std::size_t>(zero)] = static_cast<double>(mem.peak.count());
    MESSAGE("ZeRO-" << zero << ": peak " << mem.peak << ", parameters "
                    << mem.at_peak[static_cast<std::size_t>(MemoryCategory::parameters)]
                    << ", gradients "
                    << mem.at_peak[static_cast<std::size_t>(MemoryCategory::gradients)]
                    << ", optimizer "
                    << mem.at_peak[static_cast<std::size_t>(MemoryCategory::optimizer_state)]
                    << ", buffers "
                    << mem.at_peak[static_cast<std::size_t>(MemoryCategory::comm_buffers)]
                    << ", activations "
                    << mem.at_peak[static_cast<std::size_t>(MemoryCategory::activations)]);
  }
  CHECK(peaks[1] < peaks[0]);
  CHECK(peaks[2] < peaks[1]);
  CHECK(peaks[3] < peaks[2]);
}
