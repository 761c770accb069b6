// The Llama-family layer (grouped-query attention with a free head dimension, RoPE, RMSNorm,
// SwiGLU, no biases, an untied output layer, no dropout) on the cpu backend in fp64: its
// backward agrees with finite differences on one device, and partitioned runs (TP x SP x PP x
// DP x ZeRO x recomputation) equal one device.
#include <doctest/doctest.h>

#include <random>
#include <variant>

#include "equivalence_asserts.hpp"
#include "models/build_program.hpp"
#include "models/equivalence_check.hpp"

using namespace trainsim;

namespace {

// A small Llama: heads 4 in 2 key/value groups of head dimension 6 (heads x head_dim = 24 ≠
// hidden 16), SwiGLU of gated width 20.
ModelSpec llama(std::int64_t layers, std::int64_t seq_len, std::int64_t vocab) {
  ModelSpec m = test::model_spec(layers, 16, 4, 20, seq_len, vocab);
  m.kv_heads = 2;
  m.head_size = 6;
  m.activation = Activation::swiglu;
  m.norm = NormKind::rmsnorm;
  m.position = PositionKind::rope;
  m.rope_theta = 500000.0;
  m.tied_embeddings = false;
  m.bias = false;
  m.hidden_dropout = 0.0;
  m.attention_dropout = 0.0;
  return m;
}

// Parameters: per layer two RMSNorm gains, QKV, projection, FC1 (gate and up), FC2 (and with
// QK-norm its two gains); outside the layers the word embedding, the final gain and the output
// layer.
std::size_t llama_parameters(const ModelSpec& m) {
  return static_cast<std::size_t>(3 + (m.qk_norm ? 8 : 6) * m.layers);
}

}  // namespace

TEST_CASE("cpu: the Llama layer's gradients agree with central finite differences") {
  for (bool qk_norm : {false, true}) {
    ModelSpec m = llama(2, 6, 11);
    m.qk_norm = qk_norm;  // Qwen3's per-head RMSNorm on queries and keys
    CAPTURE(qk_norm);
    const GradientCheckReport r =
        check_gradients_finite_difference(m, test::training_spec(2, 1), 7, 3);
    CAPTURE(r.worst);
    CHECK(r.samples == 3 * static_cast<std::int64_t>(llama_parameters(m)));
    CHECK(r.max_relative_error < 1e-6);
  }
}

TEST_CASE("cpu: flash attention gives the standard core's loss and gradients (< 1e-12 relative)") {
  // One device, the same weights and tokens: the fused kernel's recomputation from the
  // log-sum-exp is the same arithmetic as the unfused softmax, GQA and RoPE included.
  ModelSpec m = llama(2, 8, 20);
  const auto reference = test::single_device_loss_and_gradients(m, 2, Recompute::none);
  m.attention = AttentionKind::flash;
  for (Recompute recompute : {Recompute::none, Recompute::selective}) {
    CAPTURE(to_string(recompute));
    test::check_close_tensors(test::single_device_loss_and_gradients(m, 2, recompute), reference,
                              1e-12);
  }
}

TEST_CASE("cpu: a sliding window as long as the sequence is full attention, a shorter one is not") {
  ModelSpec m = llama(2, 8, 20);
  m.attention = AttentionKind::flash;
  const auto full = test::single_device_loss_and_gradients(m, 2, Recompute::none);
  m.attention_window = AttentionWindow{8, 1};
  test::check_close_tensors(test::single_device_loss_and_gradients(m, 2, Recompute::none), full,
                            1e-12);
  m.attention_window = AttentionWindow{3, 2};  // GPT-OSS's pattern: layer 0 windowed, 1 full
  const auto windowed = test::single_device_loss_and_gradients(m, 2, Recompute::selective);
  CHECK(windowed[0][0] != doctest::Approx(full[0][0]).epsilon(1e-9));
  const GradientCheckReport r =
      check_gradients_finite_difference(m, test::training_spec(2, 1), 7, 3);
  CAPTURE(r.worst);
  CHECK(r.max_relative_error < 1e-6);
}

TEST_CASE("meta: a flash kernel runs the s(s+1)/2 causal pairs, a windowed one the w·s − w(w−1)/2") {
  ModelSpec m = llama(2, 64, 32);
  m.attention = AttentionKind::flash;
  const auto attention_flops = [&] {
    double forward = 0.0;
    const program::Program p = build_program(m, ParallelPlan{}, test::training_spec(1, 1),
                                             ProgramScope::representative);
    for (const program::Op& op : p.ranks[0].ops) {
      const auto* k = std::get_if<program::Kernel>(&op.payload);
      if (k != nullptr && op.kernel_class == program::KernelClass::attention) {
        forward += k->flops.count();
      }
    }
    return forward;
  };
  const double full = attention_flops();
  // 2 layers, 4 heads of 6, one sequence of 64: 4·a·d·s(s+1)/2 each.
  CHECK(full == doctest::Approx(2 * 4.0 * 4 * 6 * 64.0 * 65.0 / 2.0));
  m.attention_window = AttentionWindow{16, 2};
  const double windowed = attention_flops();
  CHECK(windowed == doctest::Approx(full / 2 + 4.0 * 4 * 6 * (16.0 * 64 - 16.0 * 15 / 2)));
}

TEST_CASE("cpu: Llama (GQA x SwiGLU x RMSNorm x RoPE) x TP 2 x SP x PP 2 x DP 2 equals one device") {
  std::mt19937_64 rng(20261126);
  int runs = 0;
  for (PipelineSchedule schedule : {PipelineSchedule::one_f_one_b, PipelineSchedule::interleaved}) {
    for (bool sp : {false, true}) {
      for (Recompute recompute : {Recompute::none, Recompute::selective, Recompute::full}) {
        for (int zero : {0, 1, 3}) {
          if (zero == 3 && schedule == PipelineSchedule::interleaved) continue;
          const std::int64_t chunks = schedule == PipelineSchedule::interleaved ? 2 : 1;
          ModelSpec m = llama(2 * chunks, 2 * (2 + static_cast<std::int64_t>(rng() % 3)),
                              2 * (5 + static_cast<std::int64_t>(rng() % 4)));
          // Every other run with the fused attention kernel, every third with QK-norm.
          if (runs % 2 == 1) m.attention = AttentionKind::flash;
          m.qk_norm = runs % 3 == 0;
          if (runs % 4 == 1) m.attention_window = AttentionWindow{3, 2};  // flash runs only
          ParallelPlan plan;
          plan.tensor.size = 2;
          plan.tensor.sequence_parallel = sp;
          plan.pipeline.size = 2;
          plan.pipeline.schedule = schedule;
          plan.pipeline.chunks = chunks;
          plan.data.size = 2;
          plan.data.zero = zero;
          plan.recompute = recompute;
          const TrainingSpec training = test::training_spec(2 * 2 * 2, 2);  // 2 micro batches
          CAPTURE(to_string(schedule));
          CAPTURE(to_string(m.attention));
          CAPTURE(m.qk_norm);
          CAPTURE(m.attention_window.has_value());
          CAPTURE(sp);
          CAPTURE(to_string(recompute));
          CAPTURE(zero);
          CAPTURE(m.seq_len);
          CAPTURE(m.vocab);
          const EquivalenceReport r = check_against_single_device(m, plan, training, rng());
          CAPTURE(r.loss_error);
          CAPTURE(r.max_gradient_error);
          CAPTURE(r.max_value_error);
          CHECK(r.ranks == 8);
          CHECK(r.parameters.size() == llama_parameters(m));
          CHECK(r.uncompared == 0);
          CHECK(r.loss_single > 0.0);
          CHECK(r.max_error < 1e-9);
          CHECK(r.passed);
          ++runs;
        }
      }
    }
  }
  CHECK(runs == 2 * 3 * 3 + 2 * 3 * 2);
}

TEST_CASE("cpu: Llama without a pipeline, TP 2 x SP x DP 2 x ZeRO 2, equals one device") {
  const ModelSpec m = llama(2, 8, 12);
  ParallelPlan plan;
  plan.tensor.size = 2;
  plan.tensor.sequence_parallel = true;
  plan.data.size = 2;
  plan.data.zero = 2;
  const EquivalenceReport r =
      check_against_single_device(m, plan, test::training_spec(2 * 2 * 2, 2), 11);
  CHECK(r.parameters.size() == llama_parameters(m));
  CHECK(r.max_error < 1e-9);
  CHECK(r.passed);
}

TEST_CASE("cpu: Llama inference (no biases, flash) over PP 2 x TP 2 gives one device's loss") {
  ModelSpec m = llama(4, 8, 12);
  m.attention = AttentionKind::flash;
  ParallelPlan plan;
  plan.tensor.size = 2;
  plan.tensor.sequence_parallel = true;
  plan.pipeline.size = 2;
  TrainingSpec training = test::training_spec(4, 2);
  training.mode = RunMode::inference;
  const EquivalenceReport r = check_against_single_device(m, plan, training, 3);
  CHECK(r.loss_single > 0.0);
  CHECK(r.loss_error < 1e-12);
  CHECK(r.passed);
}

TEST_CASE("cpu: a head dimension free of hidden / heads (hidden 18, 4 heads of 6) x TP 2 equals one device") {
  ModelSpec m = llama(2, 8, 12);
  m.hidden = 18;  // not a multiple of the 4 heads: only head_dim sets the attention's widths
  ParallelPlan plan;
  plan.tensor.size = 2;
  plan.data.size = 2;
  const EquivalenceReport r =
      check_against_single_device(m, plan, test::training_spec(2 * 2 * 2, 2), 13);
  CHECK(r.parameters.size() == llama_parameters(m));
  CHECK(r.max_error < 1e-9);
  CHECK(r.passed);
}

TEST_CASE("cpu: Llama x CP 2 x TP 2 (x SP) x PP 2 x DP, flash ring attention, equals one device") {
  // Issue 19's target: GQA x SwiGLU x RMSNorm x RoPE x CP 2 x TP 2 x PP 2 < 1e-9 relative. The
  // ring passes each rank's keys and values on and merges the blocks by log-sum-exp; the
  // backward passes each block's dK/dV around the ring back to its owner.
  std::mt19937_64 rng(20261127);
  int runs = 0;
  for (PipelineSchedule schedule : {PipelineSchedule::one_f_one_b, PipelineSchedule::interleaved}) {
    for (Recompute recompute : {Recompute::none, Recompute::full}) {
      for (int zero : {0, 1}) {
        const std::int64_t chunks = schedule == PipelineSchedule::interleaved ? 2 : 1;
        // seq_len a multiple of 2·CP·TP: four chunks of which SP splits each rank's two.
        ModelSpec m = llama(2 * chunks, 8 * (1 + static_cast<std::int64_t>(rng() % 2)),
                            2 * (5 + static_cast<std::int64_t>(rng() % 4)));
        m.attention = AttentionKind::flash;
        m.qk_norm = runs % 3 == 0;
        if (runs % 4 == 1) m.attention_window = AttentionWindow{3, 2};
        ParallelPlan plan;
        plan.tensor.size = 2;
        plan.tensor.sequence_parallel = runs % 2 == 0;
        plan.context.size = 2;
        plan.pipeline.size = 2;
        plan.pipeline.schedule = schedule;
        plan.pipeline.chunks = chunks;
        plan.data.size = 1 + runs % 2;
        plan.data.zero = zero;
        plan.recompute = recompute;
        const TrainingSpec training = test::training_spec(2 * 2 * plan.data.size, 2);
        CAPTURE(to_string(schedule));
        CAPTURE(to_string(recompute));
        CAPTURE(zero);
        CAPTURE(plan.tensor.sequence_parallel);
        CAPTURE(m.qk_norm);
        CAPTURE(m.attention_window.has_value());
        CAPTURE(m.seq_len);
        const EquivalenceReport r = check_against_single_device(m, plan, training, rng());
        CAPTURE(r.loss_error);
        CAPTURE(r.max_gradient_error);
        CAPTURE(r.max_value_error);
        CHECK(r.ranks == 8 * plan.data.size);
        CHECK(r.parameters.size() == llama_parameters(m));
        CHECK(r.uncompared == 0);
        CHECK(r.max_error < 1e-9);
        CHECK(r.passed);
        ++runs;
      }
    }
  }
  CHECK(runs == 8);
}

TEST_CASE("cpu: CP 4 without TP, and CP 2 in inference, equal one device") {
  ModelSpec m = llama(2, 16, 12);
  m.attention = AttentionKind::flash;
  ParallelPlan plan;
  plan.context.size = 4;
  plan.data.size = 2;
  plan.data.zero = 1;
  const EquivalenceReport r = check_against_single_device(m, plan, test::training_spec(4, 1), 5);
  CHECK(r.ranks == 8);
  CHECK(r.uncompared == 0);
  CHECK(r.max_error < 1e-9);
  CHECK(r.passed);

  ParallelPlan inference;
  inference.context.size = 2;
  inference.tensor.size = 2;
  TrainingSpec forward = test::training_spec(2, 1);
  forward.mode = RunMode::inference;
  const EquivalenceReport f = check_against_single_device(m, inference, forward, 9);
  CHECK(f.loss_single > 0.0);
  CHECK(f.loss_error < 1e-12);
  CHECK(f.passed);
}

TEST_CASE(
    "meta: CP's ring blocks run exactly one device's causal pairs, and each rank the same share") {
  // Megatron's 2c-chunk split balances the causal mask: every CP rank runs s(s+1)/(2c) pairs
  // per head and sequence, windowed or not, and the ring moves c − 1 K/V blocks per layer.
  for (const bool window : {false, true}) {
    ModelSpec m = llama(2, 64, 32);
    m.attention = AttentionKind::flash;
    if (window) m.attention_window = AttentionWindow{16, 1};
    const auto per_rank = [&](std::int64_t cp) {
      ParallelPlan plan;
      plan.context.size = cp;
      const program::Program p =
          build_program(m, plan, test::training_spec(1, 1), ProgramScope::representative);
      std::vector<double> flops;
      std::vector<std::int64_t> sends;
      for (const program::RankProgram& rank : p.ranks) {
        double forward = 0.0;
        std::int64_t sent = 0;
        for (const program::Op& op : rank.ops) {
          const auto* k = std::get_if<program::Kernel>(&op.payload);
          if (k != nullptr && op.kernel_class == program::KernelClass::attention)
            forward += k->flops.count();
          if (std::holds_alternative<program::Send>(op.payload) &&
              op.stream == program::Stream::cp_send)
            ++sent;
        }
        flops.push_back(forward);
        sends.push_back(sent);
      }
      return std::pair{flops, sends};
    };
    CAPTURE(window);
    const double one = per_rank(1).first.at(0);
    const auto [flops, sends] = per_rank(4);
    REQUIRE(flops.size() == 4);  // every CP rank recorded
    double total = 0.0;
    for (std::size_t r = 0; r < flops.size(); ++r) {
      total += flops[r];
      // 2 layers: forward c − 1 K/V sends; backward c − 1 K/V and c − 1 dK/dV sends (TE's
      // ring: the owner keeps its own block's share).
      CHECK(sends[r] == 2 * (3 + 3 + 3));
    }
    CHECK(total == doctest::Approx(one).epsilon(1e-12));
    if (!window) {
      for (const double f : flops)
        CHECK(f == doctest::Approx(one / 4).epsilon(1e-12));
    }
  }
}

TEST_CASE(
    "cpu: FP8 linears (exact casts on cpu) keep Llama x TP 2 x SP (x TP overlap) x PP 2 x DP 2 "
    "equal to one device") {
  // The cpu backend keeps FP8 values exact, so this proves the FP8 path's data flow: the casts'
  // two layouts, the FP8 copies saved in place of the bf16 inputs, the cached weight copies, the
  // FP8 all-gathers of SP, each GEMM's operands.
  std::mt19937_64 rng(20261128);
  for (int zero : {0, 1, 3}) {
    for (Recompute recompute : {Recompute::none, Recompute::selective, Recompute::full}) {
      ModelSpec m = llama(2, 8, 12);
      m.attention = zero == 1 ? AttentionKind::flash : AttentionKind::standard;
      ParallelPlan plan;
      plan.tensor.size = 2;
      plan.tensor.sequence_parallel = recompute != Recompute::selective;
      plan.pipeline.size = 2;
      plan.data.size = 2;
      plan.data.zero = zero;
      plan.recompute = recompute;
      // TP communication overlap's ring exchanges pass the FP8 shards (with SP, ZeRO 0 and 1).
      plan.tensor.comm_overlap = plan.tensor.sequence_parallel && zero < 3;
      TrainingSpec training = test::training_spec(2 * 2 * 2, 2);
      training.fp8 = zero == 3 ? Fp8Recipe::tensorwise : Fp8Recipe::delayed;
      CAPTURE(zero);
      CAPTURE(plan.tensor.comm_overlap);
      CAPTURE(to_string(recompute));
      const EquivalenceReport r = check_against_single_device(m, plan, training, rng());
      CHECK(r.uncompared == 0);
      CHECK(r.max_error < 1e-9);
      CHECK(r.passed);
    }
  }
}

TEST_CASE(
    "meta: FP8 runs the layers' linears in fp8 and the output layer in bf16, casting each weight "
    "once per step") {
  ModelSpec m = llama(2, 16, 32);
  m.attention = AttentionKind::flash;
  ParallelPlan plan;
  plan.tensor.size = 2;
  TrainingSpec training = test::training_spec(3, 1);  // 3 micro batches
  training.fp8 = Fp8Recipe::delayed;
  const program::Program p = build_program(m, plan, training, ProgramScope::representative);
  int fp8 = 0;
  int bf16 = 0;
  int weight_casts = 0;
  int casts = 0;
  for (const program::Op& op : p.ranks[0].ops) {
    if (const auto* g = std::get_if<program::Gemm>(&op.payload)) {
      const std::string_view name = p.names.name(op.name);
      const bool layer_linear = name.find(".qkv") != std::string_view::npos ||
                                name.find(".proj") != std::string_view::npos ||
                                name.find(".fc1") != std::string_view::npos ||
                                name.find(".fc2") != std::string_view::npos;
      CAPTURE(name);
      CHECK((g->dtype == DType::fp8) == layer_linear);
      (g->dtype == DType::fp8 ? fp8 : bf16)++;
      if (g->dtype == DType::fp8 && !g->accumulate) CHECK(g->c_dtype == DType::bf16);
    }
    if (std::holds_alternative<program::Kernel>(op.payload)) {
      const std::string_view name = p.names.name(op.name);
      if (name.find("weight.fp8_cast") != std::string_view::npos) ++weight_casts;
      if (name.find("fp8_cast") != std::string_view::npos) ++casts;
    }
  }
  // 2 layers x 4 linears x 3 micro batches x (forward, dgrad, wgrad).
  CHECK(fp8 == 2 * 4 * 3 * 3);
  CHECK(bf16 > 0);               // the output layer's three GEMMs per micro batch
  CHECK(weight_casts == 2 * 4);  // once per step: TE's weight cache across micro batches
  // Per linear and micro batch: its input in the forward, its output gradient in the backward.
  CHECK(casts == weight_casts + 2 * 4 * 3 * 2);
}
