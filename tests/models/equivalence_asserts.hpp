#pragma once
// Shared assertions of the cpu-equals-one-device tests, and the small spec builders and Program
// sums the executor tests use.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <unordered_map>
#include <variant>
#include <vector>

#include "models/cpu_backend.hpp"
#include "models/cpu_communicator.hpp"
#include "models/equivalence_check.hpp"
#include "models/parallel_plan.hpp"
#include "models/program.hpp"
#include "models/train_step.hpp"
#include "models/transformer.hpp"

namespace trainsim::test {

/// A GPT of the given sizes, vocabulary unpadded (make_vocab_divisible_by 1).
inline ModelSpec model_spec(std::int64_t layers, std::int64_t hidden, std::int64_t heads,
                            std::int64_t ffn, std::int64_t seq_len, std::int64_t vocab) {
  ModelSpec m;
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.ffn = ffn;
  m.seq_len = seq_len;
  m.vocab = vocab;
  m.vocab_divisor = 1;
  return m;
}

inline TrainingSpec training_spec(std::int64_t global_batch, std::int64_t micro_batch) {
  TrainingSpec t;
  t.global_batch = global_batch;
  t.micro_batch = micro_batch;
  return t;
}

/// GEMM FLOPs of every op of every recorded rank of `p`.
inline double total_gemm_flops(const program::Program& p) {
  double flops = 0.0;
  for (const program::RankProgram& r : p.ranks) {
    for (const program::Op& op : r.ops) {
      if (const auto* g = std::get_if<program::Gemm>(&op.payload)) flops += g->flops().count();
    }
  }
  return flops;
}

/// An all-reduce of the optimizer step's scalars over the model group (the gradient norm, the
/// fp16 overflow flag): not part of the gradient or activation traffic the closed forms count.
inline bool optimizer_scalar(const program::Program& p, const program::Op& op) {
  return std::holds_alternative<program::Collective>(op.payload) &&
         p.names.name(op.name).starts_with("optimizer.");
}

/// The ops of `r` whose payload is a `Payload` (Send, Recv, ...), in program order.
template <typename Payload>
std::vector<const program::Op*> ops_of(const program::RankProgram& r) {
  std::vector<const program::Op*> out;
  for (const program::Op& op : r.ops) {
    if (std::holds_alternative<Payload>(op.payload)) out.push_back(&op);
  }
  return out;
}

/// Live activation bytes after each layer's last forward op, differenced between layers
/// (recorded rank 0).
inline std::map<int, std::int64_t> activation_growth(const program::Program& p) {
  using namespace program;
  std::unordered_map<BufferId, std::int64_t> activation_size;
  std::int64_t live = 0;
  std::map<int, std::int64_t> after_layer;
  for (const Op& op : p.ranks[0].ops) {
    if (const auto* a = std::get_if<Alloc>(&op.payload)) {
      if (a->category == MemoryCategory::activations) {
        activation_size[a->buffer] = a->size.count();
        live += a->size.count();
      }
    } else if (const auto* f = std::get_if<Free>(&op.payload)) {
      if (auto it = activation_size.find(f->buffer); it != activation_size.end()) {
        live -= it->second;
        activation_size.erase(it);
      }
    }
    if (op.tag.phase == Phase::forward && op.tag.layer != Tag::kNoLayer) {
      after_layer[op.tag.layer] = live;
    }
  }
  std::map<int, std::int64_t> growth;
  for (const auto& [layer, bytes] : after_layer) {
    if (layer > 0) growth[layer] = bytes - after_layer[layer - 1];
  }
  return growth;
}

/// Random small GPT that a 2D grid or 3D cube of side q can split: heads divisible by q,
/// hidden and ffn by q², the vocabulary (unpadded) anything from 3 to 10 x `vocab_shards`.
inline ModelSpec random_grid_model(std::mt19937_64& rng, std::int64_t q,
                                   std::int64_t vocab_shards) {
  const auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  ModelSpec m;
  m.heads = q * pick(1, 2);
  const std::int64_t head_dim = q * pick(1, 2);  // hidden = heads x head_dim, a multiple of q²
  m.hidden = m.heads * head_dim;
  m.ffn = q * q * pick(2, 4);
  m.layers = pick(1, 2);
  m.seq_len = pick(3, 9);
  m.vocab = pick(3 * vocab_shards, 9 * vocab_shards) + pick(0, vocab_shards - 1);
  m.vocab_divisor = 1;
  return m;
}

/// The partitioned run equals one device: every rank ran, every parameter of the model was
/// compared (and no entry of a shard escaped comparison), the loss is real, and the largest
/// error is below 1e-9 relative.
inline void check_matches_single_device(const EquivalenceReport& r, std::int64_t ranks,
                                        std::int64_t layers) {
  CAPTURE(r.loss_error);
  CAPTURE(r.max_gradient_error);
  CAPTURE(r.max_value_error);
  CHECK(r.ranks == ranks);
  CHECK(r.parameters.size() == static_cast<std::size_t>(4 + 12 * layers));
  CHECK(r.uncompared == 0);
  CHECK(r.loss_single > 0.0);
  CHECK(r.max_error < 1e-9);
  CHECK(r.passed);
}

/// Runs the check of a random model (e.g. random_grid_model) on `plan` and asserts that it
/// matches one device, absolutely too: gradients are O(1e-2), parameters O(1).
inline EquivalenceReport check_random_model(const ModelSpec& m, const ParallelPlan& plan,
                                            const TrainingSpec& training, std::uint64_t seed) {
  CAPTURE(m.layers);
  CAPTURE(m.hidden);
  CAPTURE(m.heads);
  CAPTURE(m.ffn);
  CAPTURE(m.seq_len);
  CAPTURE(m.vocab);
  CAPTURE(training.micro_batch);
  CAPTURE(training.global_batch);
  const EquivalenceReport r = check_against_single_device(m, plan, training, seed);
  check_matches_single_device(r, plan.gpus(), m.layers);
  CHECK(r.max_gradient_abs_error < 1e-12);
  CHECK(r.max_value_abs_error < 1e-12);
  return r;
}

/// One device's training step of `m` (no dropout, no optimizer step) on one micro batch of `b`
/// sequences with random tokens (seed 5) and weights N(0, 0.1), gains + 1 (seed 9): the loss
/// first, then every parameter's gradient in registration order.
inline std::vector<std::vector<double>> single_device_loss_and_gradients(const ModelSpec& m,
                                                                         std::int64_t b,
                                                                         Recompute recompute) {
  std::mt19937_64 rng(5);
  MicroBatchTokens batch;
  for (std::int64_t i = 0; i < m.seq_len * b; ++i) {
    batch.tokens.push_back(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(m.vocab)));
    batch.labels.push_back(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(m.vocab)));
  }
  CpuCommunicator comm;
  CpuBackend cpu(comm, 0, {0}, {0}, {batch}, 0);
  TransformerModel model(cpu, TransformerShape::of(m, m.vocab, b, 0.0, 0.0), {0, 1},
                         {false, recompute});
  std::normal_distribution<double> normal(0.0, 0.1);
  std::mt19937_64 init(9);
  for (const Parameter& p : model.parameters()) {
    for (double& x : CpuBackend::values(p.value))
      x = normal(init) + (p.name.ends_with("gamma") ? 1.0 : 0.0);
  }
  OptimizerState optimizer = make_optimizer_state(cpu, model);
  IterationConfig config;
  config.global_tokens = m.seq_len * b;
  config.optimizer_step = false;
  const Tensor loss = run_iteration(cpu, model, optimizer, config);
  std::vector<std::vector<double>> out{{CpuBackend::values(loss)[0]}};
  for (const Parameter& p : model.parameters()) {
    const std::span<double> g = CpuBackend::values(p.grad);
    out.emplace_back(g.begin(), g.end());
  }
  return out;
}

/// Each tensor of `got` equals `reference`'s within `relative` of its largest magnitude.
inline void check_close_tensors(const std::vector<std::vector<double>>& got,
                                const std::vector<std::vector<double>>& reference,
                                double relative) {
  REQUIRE(got.size() == reference.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    REQUIRE(got[i].size() == reference[i].size());
    double diff = 0.0;
    double scale = 0.0;
    for (std::size_t k = 0; k < got[i].size(); ++k) {
      diff = std::max(diff, std::abs(got[i][k] - reference[i][k]));
      scale = std::max(scale, std::abs(reference[i][k]));
    }
    CAPTURE(i);
    CHECK(scale > 0.0);
    CHECK(diff <= relative * scale);
  }
}

}  // namespace trainsim::test
