#include <doctest/doctest.h>

#include <cmath>

#include "models/model_spec.hpp"
#include "models/rank_layout.hpp"

using namespace trainsim;

namespace {
ModelSpec gpt(std::int64_t layers, std::int64_t hidden, std::int64_t heads) {
  ModelSpec m;
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.ffn = 4 * hidden;
  m.seq_len = 2048;
  m.vocab = 51200;
  return m;
}
}  // namespace

TEST_CASE("parameter counts of the Megatron weak-scaling models (Narayanan et al. 2021, Table 1)") {
  struct Row {
    double published_billions;
    std::int64_t heads, hidden, layers;
  };
  const Row rows[] = {{1.7, 24, 2304, 24},      {3.6, 32, 3072, 30},     {7.5, 32, 4096, 36},
                      {18.4, 48, 6144, 40},     {39.1, 64, 8192, 48},    {76.1, 80, 10240, 60},
                      {145.6, 96, 12288, 80},   {310.1, 128, 16384, 96}, {529.6, 128, 20480, 105},
                      {1008.0, 160, 25600, 128}};
  for (const Row& r : rows) {
    CAPTURE(r.published_billions);
    const ModelSpec m = gpt(r.layers, r.hidden, r.heads);
    const double billions = static_cast<double>(m.parameters()) / 1e9;
    // The paper prints one decimal.
    CHECK(std::round(billions * 10.0) / 10.0 == doctest::Approx(r.published_billions));
    // Our exact count differs from eq. 2 only by the final LayerNorm (2h), which eq. 2 omits.
    CHECK(static_cast<double>(m.parameters() - 2 * m.hidden) ==
          doctest::Approx(paper_formulas::narayanan_parameters(m)).epsilon(1e-12));
  }
}

TEST_CASE("per-layer parameters are 12h^2 + 13h at f = 4h") {
  const ModelSpec m = gpt(48, 6144, 64);
  CHECK(m.parameters_per_layer() == 12 * 6144LL * 6144 + 13 * 6144);
}

TEST_CASE("model and hardware FLOPs match the published closed forms") {
  const ModelSpec m = gpt(48, 6144, 64);  // Korthikanti 22B
  const std::int64_t batch = 4;
  CHECK(m.model_flops(batch).count() ==
        doctest::Approx(paper_formulas::korthikanti_model_flops(m, batch)).epsilon(1e-12));
  CHECK(m.hardware_flops(batch, Recompute::full).count() ==
        doctest::Approx(paper_formulas::narayanan_full_recompute_flops(m, batch)).epsilon(1e-12));
  CHECK(m.hardware_flops(batch, Recompute::none) == m.model_flops(batch));
}

TEST_CASE("selective recompute: first-principles count is a third of the paper's increment") {
  // parallelism-reference §2.6 caveat: re-running QK^T and P·V adds 4·B·s²·h per layer, i.e.
  // s/(18h) relative, where the printed formula adds s/(6h).
  const ModelSpec m = gpt(48, 6144, 64);
  const std::int64_t batch = 4;
  const double model = m.model_flops(batch).count();
  const double ours = m.hardware_flops(batch, Recompute::selective).count() - model;
  const double paper = paper_formulas::korthikanti_selective_hardware_flops(m, batch) - model;
  CHECK(ours / paper == doctest::Approx(1.0 / 3.0).epsilon(1e-9));
}

TEST_CASE("causal attention counting halves only the attention core") {
  ModelSpec dense = gpt(2, 512, 8);
  ModelSpec causal = dense;
  causal.attention_flops = AttentionFlops::causal;
  const double diff = dense.layer_forward_flops(1).count() - causal.layer_forward_flops(1).count();
  CHECK(diff == doctest::Approx(dense.attention_core_forward_flops(1).count() / 2.0));
}

TEST_CASE("rank layout: TP fastest, then DP, then PP (Megatron order)") {
  ParallelPlan plan;
  plan.tensor.size = 2;
  plan.data.size = 3;
  plan.pipeline.size = 2;
  const RankLayout layout(plan);
  CHECK(layout.world_size() == 12);
  const RankCoordinates c = layout.coordinates(9);  // 9 = 1 + 2·(1 + 3·1)
  CHECK(c.tp == 1);
  CHECK(c.dp == 1);
  CHECK(c.pp == 1);
  CHECK(layout.rank_of(c) == 9);
  CHECK(layout.tp_group(9) == std::vector<std::int64_t>{8, 9});
  CHECK(layout.dp_group(9) == std::vector<std::int64_t>{7, 9, 11});
  CHECK(layout.pp_group(9) == std::vector<std::int64_t>{3, 9});
}

TEST_CASE("rank layout: the model group is the ranks of one model copy, or every rank sharded") {
  // The definition, rank by rank: the same DP and CP index (and grid depth), any stage and TP.
  const auto by_definition = [](const RankLayout& layout, std::int64_t rank, bool sharded) {
    const RankCoordinates mine = layout.coordinates(rank);
    std::vector<std::int64_t> group;
    for (std::int64_t r = 0; r < layout.world_size(); ++r) {
      const RankCoordinates theirs = layout.coordinates(r);
      const bool same_depth = !layout.grid() || layout.cell(r).depth == layout.cell(rank).depth;
      if (sharded || (theirs.dp == mine.dp && theirs.cp == mine.cp && same_depth))
        group.push_back(r);
    }
    return group;
  };
  std::vector<ParallelPlan> plans(3);
  plans[0].tensor.size = 2;  // 1D, DP 3, PP 2
  plans[0].data.size = 3;
  plans[0].pipeline.size = 2;
  plans[1] = plans[0];  // with CP 2
  plans[1].context.size = 2;
  plans[2].tensor = {TensorKind::two_and_half_d, 8, false, 2, GridOrder::row_major};  // 2x2x2
  plans[2].data.size = 2;
  plans[2].pipeline.size = 3;
  for (const ParallelPlan& plan : plans) {
    const RankLayout layout(plan);
    for (std::int64_t rank = 0; rank < layout.world_size(); ++rank) {
      for (const bool sharded : {false, true}) {
        CAPTURE(rank);
        CAPTURE(sharded);
        CHECK(layout.model_group(rank, sharded) == by_definition(layout, rank, sharded));
      }
    }
  }
  // 1D, DP 3, PP 2: rank 9 (TP 1, DP 1, stage 1) shares a copy with DP index 1's four ranks.
  CHECK(RankLayout(plans[0]).model_group(9, false) == std::vector<std::int64_t>{2, 3, 8, 9});
}

TEST_CASE("plan enums round-trip through their text forms") {
  for (PipelineSchedule s :
       {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b, PipelineSchedule::interleaved,
        PipelineSchedule::breadth_first, PipelineSchedule::layered}) {
    CHECK(pipeline_schedule_from_string(to_string(s)) == s);
  }
  for (Recompute r : {Recompute::none, Recompute::selective, Recompute::full}) {
    CHECK(recompute_from_string(to_string(r)) == r);
  }
  CHECK(to_string(PipelineSchedule::one_f_one_b) == "1f1b");
  CHECK_FALSE(recompute_from_string("partial").has_value());
}

namespace {
// Llama 3 as released (modern-models-reference §2): GQA with 8 key/value heads, SwiGLU,
// RMSNorm, RoPE, no biases, untied output layer, vocabulary 128256.
ModelSpec llama3(std::int64_t layers, std::int64_t hidden, std::int64_t heads, std::int64_t ffn,
                 std::int64_t seq_len) {
  ModelSpec m = gpt(layers, hidden, heads);
  m.ffn = ffn;
  m.seq_len = seq_len;
  m.vocab = 128256;
  m.kv_heads = 8;
  m.activation = Activation::swiglu;
  m.norm = NormKind::rmsnorm;
  m.position = PositionKind::rope;
  m.tied_embeddings = false;
  m.bias = false;
  m.attention_flops = AttentionFlops::causal;
  return m;
}
}  // namespace

TEST_CASE("Llama 3 parameter counts equal the released models' exactly") {
  // Meta's model cards: 8,030,261,248 / 70,553,706,496 / 405,853,388,800 parameters.
  CHECK(llama3(32, 4096, 32, 14336, 8192).parameters() == 8'030'261'248);
  CHECK(llama3(80, 8192, 64, 28672, 8192).parameters() == 70'553'706'496);
  CHECK(llama3(126, 16384, 128, 53248, 8192).parameters() == 405'853'388'800);
  CHECK_FALSE(llama3(32, 4096, 32, 14336, 8192).gpt_layer());
  CHECK(llama3(32, 4096, 32, 14336, 8192).non_gpt_features() ==
        "kv_heads 8, activation swiglu, norm rmsnorm, position rope, tied_embeddings false, "
        "bias false");
  CHECK(gpt(48, 6144, 64).gpt_layer());
}

TEST_CASE("Llama 3 training FLOPs per token match the exact counts (causal attention halved)") {
  // modern-models-reference §1.4: 3·F_fwd per token, GFLOP.
  const auto per_token = [](const ModelSpec& m) {
    return m.model_flops(1).count() / static_cast<double>(m.seq_len) / 1e9;
  };
  CHECK(per_token(llama3(32, 4096, 32, 14336, 4096)) == doctest::Approx(48.3).epsilon(0.002));
  CHECK(per_token(llama3(32, 4096, 32, 14336, 8192)) == doctest::Approx(51.5).epsilon(0.002));
  CHECK(per_token(llama3(80, 8192, 64, 28672, 8192)) == doctest::Approx(449.2).epsilon(0.002));
  CHECK(per_token(llama3(126, 16384, 128, 53248, 8192)) == doctest::Approx(2524.0).epsilon(0.002));
}

TEST_CASE("Qwen3-32B's parameters: free head dimension and QK-norm (modern-models-reference §2)") {
  ModelSpec m = llama3(64, 5120, 64, 25600, 4096);
  m.vocab = 151936;
  m.head_size = 128;
  m.qk_norm = true;
  // 32.762 B in the reference's table (High); counted exactly: 64 x 487 598 336 + 2 x 151936
  // x 5120 + 5120.
  CHECK(m.parameters() == 32'762'123'264);
  CHECK(m.non_gpt_features().find("qk_norm") != std::string::npos);
}

TEST_CASE("a free head dimension sets the attention's widths (Qwen3-32B: 64 x 128 ≠ 5120)") {
  ModelSpec m = gpt(1, 5120, 64);
  m.head_size = 128;
  m.kv_heads = 8;
  CHECK(m.attention_width() == 8192);
  CHECK(m.qkv_width() == (64 + 16) * 128);
  m.bias = false;
  m.activation = Activation::swiglu;
  m.ffn = 25600;
  m.norm = NormKind::rmsnorm;
  // QKV, projection, gate+up, down, two RMSNorm gains.
  CHECK(m.parameters_per_layer() == 5120 * 10240 + 8192 * 5120 + 3 * 5120 * 25600 + 2 * 5120);
}
