// Mixture of experts (models/layers/moe.hpp) on the cpu backend in fp64: the router, the
// permutation, the grouped GEMMs and the weighted combine agree with finite differences on
// one device, partitioned runs with expert parallelism (drawn from DP, from TP, across both)
// equal one device, and the meta backend records the dispatch as Megatron-Core runs it.
#include <doctest/doctest.h>

#include <numeric>
#include <random>
#include <variant>

#include "equivalence_asserts.hpp"
#include "models/build_program.hpp"
#include "models/equivalence_check.hpp"
#include "models/errors.hpp"
#include "models/layers/moe.hpp"

using namespace trainsim;

namespace {

// A small Llama-family MoE: 4 experts of width 6, top-2, on every layer unless `every` says.
ModelSpec moe_model(std::int64_t layers, std::int64_t seq_len, std::int64_t vocab) {
  ModelSpec m = test::model_spec(layers, 16, 4, 20, seq_len, vocab);
  m.kv_heads = 2;
  m.activation = Activation::swiglu;
  m.norm = NormKind::rmsnorm;
  m.position = PositionKind::rope;
  m.tied_embeddings = false;
  m.bias = false;
  m.hidden_dropout = 0.0;
  m.attention_dropout = 0.0;
  m.moe = MoeSpec{4, 2, 6, 0, 1, std::nullopt};
  return m;
}

// Runs the check and asserts what every MoE equivalence run must show.
void check_equals_one_device(const ModelSpec& m, const ParallelPlan& plan,
                             const TrainingSpec& training, std::uint64_t seed) {
  const EquivalenceReport r = check_against_single_device(m, plan, training, seed);
  CAPTURE(r.loss_error);
  CAPTURE(r.max_gradient_error);
  CAPTURE(r.max_value_error);
  CAPTURE(r.grad_norm_error);
  CHECK(r.ranks == plan.gpus());
  CHECK(r.uncompared == 0);
  CHECK(r.loss_single > 0.0);
  CHECK(r.grad_norm_single.has_value());
  CHECK(r.max_error < 1e-9);
  CHECK(r.passed);
}

}  // namespace

TEST_CASE("moe: the exchange plan sends each member its experts' rows and sorts them by expert") {
  // 2 members x 4 experts (2 each); member 0 routed [1, 2, 3, 4], member 1 [5, 6, 7, 8].
  const std::vector<std::int64_t> counts{1, 2, 3, 4, 5, 6, 7, 8};
  const ExpertExchange x = ExpertExchange::plan(counts, 2, 1);
  CHECK(x.send == std::vector<std::int64_t>{5 + 6, 7 + 8});
  CHECK(x.recv == std::vector<std::int64_t>{3 + 4, 7 + 8});
  CHECK(x.source_major_rows == std::vector<std::int64_t>{3, 4, 7, 8});
  CHECK(x.to_expert_major == std::vector<std::int64_t>{0, 2, 1, 3});
  CHECK(x.expert_major_rows == std::vector<std::int64_t>{3, 7, 4, 8});
  CHECK(x.to_source_major == std::vector<std::int64_t>{0, 2, 1, 3});
  CHECK(x.rows == std::vector<std::int64_t>{3 + 7, 4 + 8});
}

TEST_CASE("cpu: the router keeps each expert's most probable tokens under a capacity") {
  CpuCommunicator comm;
  CpuBackend cpu(comm, 0, {0}, {0}, {}, 0);
  // 4 tokens x 3 experts, top-2. Expert 0 gets tokens 0 (p 0.73), 1 (0.88) and 3 (0.27);
  // expert 1 tokens 0 and 2; expert 2 tokens 1 (0.12), 2 and 3. Capacity 2 drops token 3 from
  // expert 0 and token 1 from expert 2, their least probable.
  const Tensor logits =
      cpu.allocate({1, 4, 3}, DType::fp32, program::MemoryCategory::temporaries, "");
  const std::vector<double> z{2, 1, 0, 3, 0, 1, 0, 2, 1, 1, 0, 2};
  std::copy(z.begin(), z.end(), CpuBackend::values(logits).begin());
  const MoeRouting r = cpu.route(logits, {2, 2}, "route");
  CHECK(r.tokens_per_expert == std::vector<std::int64_t>{2, 2, 2});
  // Per token its choices by falling logit; the rows laid out by expert, tokens in order.
  const std::span<double> slots = CpuBackend::values(r.slots);
  CHECK(std::vector<double>(slots.begin(), slots.end()) ==
        std::vector<double>{0, 2, 1, -1, 3, 4, 5, -1});
  const std::span<double> probs = CpuBackend::values(r.probs);
  CHECK(probs[0] == doctest::Approx(1.0 / (1.0 + std::exp(-1.0))));
  CHECK(probs[3] == doctest::Approx(1.0 / (1.0 + std::exp(2.0))));  // dropped, kept for backward
}

TEST_CASE("cpu: the MoE layer's gradients agree with central finite differences") {
  // Routed experts alone; with shared experts on alternate layers; with a capacity that drops.
  for (int variant = 0; variant < 3; ++variant) {
    ModelSpec m = moe_model(2, 6, 11);
    if (variant == 1) {
      m.moe->shared_experts = 1;
      m.moe->every = 2;
    }
    if (variant == 2) m.moe->capacity_factor = 0.75;
    CAPTURE(variant);
    const GradientCheckReport r =
        check_gradients_finite_difference(m, test::training_spec(2, 1), 7, 3);
    CAPTURE(r.worst);
    CHECK(r.max_relative_error < 1e-6);
  }
}

TEST_CASE("cpu: MoE x EP 2 x TP 2 x SP x PP 2 equals one device (EP drawn from the TP ranks)") {
  std::mt19937_64 rng(20261127);
  for (Recompute recompute : {Recompute::none, Recompute::selective, Recompute::full}) {
    for (int zero : {0, 1}) {
      ModelSpec m = moe_model(4, 2 * (2 + static_cast<std::int64_t>(rng() % 3)), 12);
      m.attention = zero == 1 ? AttentionKind::flash : AttentionKind::standard;
      m.moe->shared_experts = recompute == Recompute::selective ? 1 : 0;
      ParallelPlan plan;
      plan.tensor.size = 2;
      plan.tensor.sequence_parallel = true;
      plan.pipeline.size = 2;
      plan.expert.size = 2;
      plan.data.zero = zero;
      plan.recompute = recompute;
      CAPTURE(to_string(recompute));
      CAPTURE(zero);
      check_equals_one_device(m, plan, test::training_spec(4, 2), rng());
    }
  }
}

TEST_CASE("cpu: MoE x EP over DP (2 of 4, 4 of 4, across TP x DP) equals one device") {
  std::mt19937_64 rng(7);
  struct Layout {
    std::int64_t tensor, data, expert;
    int zero;
  };
  for (const Layout l :
       {Layout{1, 4, 2, 0}, Layout{1, 4, 4, 1}, Layout{2, 2, 4, 1}, Layout{2, 2, 1, 0}}) {
    ModelSpec m = moe_model(2, 8, 12);
    m.moe->shared_experts = 1;
    ParallelPlan plan;
    plan.tensor.size = l.tensor;
    plan.tensor.sequence_parallel = l.tensor > 1;
    plan.data.size = l.data;
    plan.data.zero = l.zero;
    plan.expert.size = l.expert;
    CAPTURE(l.tensor);
    CAPTURE(l.data);
    CAPTURE(l.expert);
    check_equals_one_device(m, plan, test::training_spec(2 * l.data, 1), rng());
  }
}

TEST_CASE("cpu: MoE inference over TP 2 x SP x PP 2 x EP 4 gives one device's loss") {
  ModelSpec m = moe_model(4, 8, 12);
  m.moe->shared_experts = 1;
  ParallelPlan plan;
  plan.tensor.size = 2;
  plan.tensor.sequence_parallel = true;
  plan.pipeline.size = 2;
  plan.data.size = 2;
  plan.expert.size = 4;
  TrainingSpec training = test::training_spec(4, 2);
  training.mode = RunMode::inference;
  const EquivalenceReport r = check_against_single_device(m, plan, training, 23);
  CHECK(r.loss_single > 0.0);
  CHECK(r.loss_error < 1e-12);
  CHECK(r.passed);
  // The meta backend frees every activation once consumed: nothing saved for a backward.
  const program::Program p = build_program(m, plan, training, ProgramScope::representative);
  for (const program::RankProgram& rank : p.ranks) {
    for (const program::Op& op : rank.ops) {
      const auto* a = std::get_if<program::Alloc>(&op.payload);
      CHECK((a == nullptr || a->category != program::MemoryCategory::activations));
    }
  }
}

TEST_CASE("cpu: MoE in FP8 (TE's grouped linears) x EP 2 x TP 2 x SP x DP 2 equals one device") {
  // The cpu backend keeps FP8 values exact: the check proves the casts' plumbing (which copy
  // each GEMM reads), as for the dense FP8 linears.
  for (Fp8Recipe recipe : {Fp8Recipe::delayed, Fp8Recipe::tensorwise}) {
    ModelSpec m = moe_model(2, 8, 12);
    m.moe->shared_experts = 1;
    ParallelPlan plan;
    plan.tensor.size = 2;
    plan.tensor.sequence_parallel = true;
    plan.data.size = 2;
    plan.data.zero = 1;
    plan.expert.size = 2;
    plan.recompute = Recompute::full;
    TrainingSpec training = test::training_spec(4, 1);
    training.fp8 = recipe;
    CAPTURE(to_string(recipe));
    check_equals_one_device(m, plan, training, 17);
  }
}

TEST_CASE("meta: FP8 experts run their grouped GEMMs in FP8 and keep FP8 weight copies") {
  ModelSpec m = moe_model(2, 16, 32);
  ParallelPlan plan;
  plan.data.size = 2;
  plan.expert.size = 2;
  TrainingSpec training = test::training_spec(2, 1);
  training.fp8 = Fp8Recipe::delayed;
  const program::Program p = build_program(m, plan, training, ProgramScope::representative);
  int fp8_expert_gemms = 0;
  int bf16_expert_gemms = 0;
  for (const program::Op& op : p.ranks[0].ops) {
    const auto* g = std::get_if<program::Gemm>(&op.payload);
    if (g == nullptr || !p.names.name(op.name).starts_with("moe.fc")) continue;
    (g->dtype == DType::fp8 ? fp8_expert_gemms : bf16_expert_gemms) += 1;
  }
  CHECK(fp8_expert_gemms == 2 * 6);  // per layer FC1 and FC2: forward, dgrad, wgrad
  CHECK(bf16_expert_gemms == 0);
}

TEST_CASE("cpu: MoE with a capacity factor drops the same tokens as one device over DP x EP x PP") {
  ModelSpec m = moe_model(4, 8, 12);
  m.moe->capacity_factor = 1.0;
  ParallelPlan plan;
  plan.data.size = 2;
  plan.expert.size = 2;
  plan.pipeline.size = 2;
  plan.pipeline.schedule = PipelineSchedule::interleaved;
  plan.pipeline.chunks = 2;
  check_equals_one_device(m, plan, test::training_spec(4, 1), 5);
  // With TP each rank routes its sequence shard under its own capacity (Megatron-Core's
  // semantics), which one device cannot reproduce: the check says so.
  plan = ParallelPlan{};
  plan.tensor.size = 2;
  plan.tensor.sequence_parallel = true;
  CHECK_THROWS_AS(check_against_single_device(m, plan, test::training_spec(2, 1), 5), Infeasible);
}

TEST_CASE("meta: a MoE layer records the router, the balanced dispatch and the grouped GEMMs") {
  ModelSpec m = moe_model(2, 16, 32);
  ParallelPlan plan;
  plan.data.size = 4;
  plan.expert.size = 4;
  const program::Program p =
      build_program(m, plan, test::training_spec(4, 1), ProgramScope::representative);
  // 16 tokens x top-2 over 4 experts: 8 rows per expert, each rank's expert gets 8 from each of
  // the 4 members. Per layer 4 all-to-alls (dispatch and combine, forward and backward) of
  // the rank's 32 routed rows of 16 bf16 values.
  int all_to_all = 0;
  double expert_gemm_flops = 0.0;
  for (const program::Op& op : p.ranks[0].ops) {
    if (const auto* c = std::get_if<program::Collective>(&op.payload)) {
      if (c->kind != program::CollectiveKind::all_to_all) continue;
      ++all_to_all;
      CHECK(c->size == Bytes::of(32 * 16 * 2));
      CHECK(p.groups[static_cast<std::size_t>(c->group)].kind == program::GroupKind::ep);
      CHECK(p.groups[static_cast<std::size_t>(c->group)].ranks.size() == 4);
    }
    if (const auto* g = std::get_if<program::Gemm>(&op.payload)) {
      const std::string_view name = p.names.name(op.name);
      if (name.starts_with("moe.fc")) {
        CHECK(g->batch == 1);  // one local expert
        CHECK((g->m == 32 || g->k == 32));
        expert_gemm_flops += g->flops().count();
      }
    }
  }
  CHECK(all_to_all == 2 * 4);
  // Forward and backward (dgrad + wgrad) of FC1 (h -> 2F) and FC2 (F -> h) over 32 rows.
  CHECK(expert_gemm_flops == doctest::Approx(2 * 3 * 2.0 * 32 * 16 * 6 * 3));
  // The experts' gradients have no expert-data group to be summed over (4 / 4 = 1).
  for (const program::Op& op : p.ranks[0].ops) {
    if (const auto* c = std::get_if<program::Collective>(&op.payload)) {
      if (c->kind == program::CollectiveKind::all_reduce && c->size > Bytes::of(64)) {
        CHECK(p.groups[static_cast<std::size_t>(c->group)].kind == program::GroupKind::dp);
      }
    }
  }
}

TEST_CASE("model spec: a MoE model counts its experts' parameters and its active FLOPs") {
  ModelSpec m = moe_model(4, 16, 32);
  m.moe->every = 2;  // layers 0 and 2
  m.moe->shared_experts = 1;
  const ModelSpec dense = [&] {
    ModelSpec d = m;
    d.moe.reset();
    return d;
  }();
  const std::int64_t h = 16;
  const std::int64_t mlp = 3 * h * 20;
  const std::int64_t moe_layer = h * 4 + 4 * 3 * h * 6 + 3 * h * 6;  // router, experts, shared
  CHECK(m.parameters() == dense.parameters() + 2 * (moe_layer - mlp));
  CHECK(m.active_parameters() == m.parameters() - 2 * 2 * 3 * h * 6);
  // Per token a MoE layer runs k experts and the shared one instead of the MLP (router apart).
  const double tokens = 16.0;
  const double per_layer = 2.0 * tokens * 3.0 * h * (2 * 6 + 6 - 20);
  CHECK(m.forward_flops(1).count() ==
        doctest::Approx(dense.forward_flops(1).count() + 2 * per_layer));
  CHECK(m.hardware_flops(1, Recompute::none).count() ==
        doctest::Approx(m.model_flops(1).count() + 3 * 2 * 2.0 * tokens * h * 4));
}

TEST_CASE("meta: uneven routing gives the recorded rank the busiest experts' rows") {
  ModelSpec m = moe_model(2, 64, 32);
  m.moe->experts = 8;
  ParallelPlan plan;
  plan.data.size = 4;
  plan.expert.size = 4;
  const auto busiest = [&](ExpertRouting routing) {
    m.moe->routing = routing;
    m.moe->zipf_exponent = 1.5;
    const program::Program p =
        build_program(m, plan, test::training_spec(4, 1), ProgramScope::representative);
    std::int64_t rows = 0;   // FC1's rows in the first layer's forward
    double exchanged = 0.0;  // bytes of the largest all-to-all
    for (const program::Op& op : p.ranks[0].ops) {
      if (const auto* g = std::get_if<program::Gemm>(&op.payload);
          g != nullptr && p.names.name(op.name) == "moe.fc1" && rows == 0) {
        rows = static_cast<std::int64_t>(g->m) * g->batch;
      }
      if (const auto* c = std::get_if<program::Collective>(&op.payload);
          c != nullptr && c->kind == program::CollectiveKind::all_to_all) {
        exchanged = std::max(exchanged, c->size.as_double());
      }
    }
    return std::pair{rows, exchanged};
  };
  const auto [balanced_rows, balanced_bytes] = busiest(ExpertRouting::balanced);
  CHECK(balanced_rows == 64 * 2);  // 64 tokens x top-2 over 4 ranks, from each of 4 members
  for (ExpertRouting routing : {ExpertRouting::uniform, ExpertRouting::zipf}) {
    CAPTURE(to_string(routing));
    const auto [rows, bytes] = busiest(routing);
    CHECK(rows > balanced_rows);
    CHECK(bytes > balanced_bytes);
  }
}
