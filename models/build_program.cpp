#include "models/build_program.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "models/errors.hpp"
#include "models/gpt.hpp"
#include "models/meta_backend.hpp"
#include "models/rank_layout.hpp"
#include "models/train_step.hpp"

namespace trainsim {

namespace {

// Limits that keep the exact integer byte counts (int64) from overflowing and the Program
// small enough to build in memory. Computed in double so the check itself cannot overflow.
constexpr double kMaxBytes = 0x1p62;
constexpr double kMaxRecordedOps = 5e7;
// Ops the executor records per layer and micro batch, with margin (measured: about 175 with
// SP and full recomputation, 225 with ZeRO-3's gathers and gradient buckets on top).
constexpr double kOpsPerLayerAndMicroBatch = 250.0;

void check_size_limits(const ModelSpec& model, const ParallelPlan& plan,
                       const TrainingSpec& training) {
  const double t = static_cast<double>(plan.tensor.size);
  const double b = static_cast<double>(training.micro_batch);
  const double s = static_cast<double>(model.seq_len);
  const double h = static_cast<double>(model.hidden);
  const double a = static_cast<double>(model.heads);
  const double v = static_cast<double>(model.padded_vocab(plan.tensor.size));
  const double f = static_cast<double>(model.ffn);
  const double layers = static_cast<double>(model.layers);
  const double state = 18.0 * (layers * (4.0 * h * h + 2.0 * h * f) + v * h) / t;
  const double scores = 4.0 * b * (a / t) * s * s;  // fp32 softmax of one layer
  const double logits = 4.0 * b * s * v / t;
  const double largest = std::max({state, scores, logits});
  if (largest > kMaxBytes) {
    throw Infeasible(fmt::format(
        "this model needs {:.3g} bytes in one buffer on one GPU (model state {:.3g}, attention "
        "scores {:.3g}, logits {:.3g}); the limit is {:.3g} bytes",
        largest, state, scores, logits, kMaxBytes));
  }
  const double micro_batches =
      static_cast<double>(training.global_batch) / (b * static_cast<double>(plan.data.size));
  const double ops = layers * micro_batches * kOpsPerLayerAndMicroBatch;
  if (ops > kMaxRecordedOps) {
    throw Infeasible(fmt::format(
        "one GPU's Program would hold about {:.3g} ops ({} layers x {:.0f} micro batches); the "
        "limit is {:.0e}: use fewer, larger micro batches",
        ops, model.layers, micro_batches, kMaxRecordedOps));
  }
}

}  // namespace

void check_supported(const ModelSpec& model, const ParallelPlan& plan,
                     const TrainingSpec& training) {
  if (plan.pipeline.size != 1) {
    throw Infeasible(fmt::format(
        "pipeline size {}: pipeline parallelism arrives with issue 5 (only 1 is supported)",
        plan.pipeline.size));
  }
  const std::int64_t t = plan.tensor.size;
  if (plan.tensor.sequence_parallel && t < 2) {
    throw Infeasible(fmt::format(
        "parallel.tensor.sequence_parallel: sequence parallelism needs tensor.size > 1 (got {}), "
        "as in Megatron-LM; set sequence_parallel to false or tensor.size to 2 or more",
        t));
  }
  if (plan.tensor.sequence_parallel && model.seq_len % t != 0) {
    throw Infeasible(fmt::format(
        "parallel.tensor.sequence_parallel: seq_len {} is not divisible by tensor.size {}",
        model.seq_len, t));
  }
  if (plan.data.zero < 0 || plan.data.zero > 3) {
    throw Infeasible(fmt::format("parallel.data.zero: ZeRO stage {} does not exist; use 0 to 3",
                                 plan.data.zero));
  }
  if (t < 1 || plan.data.size < 1) {
    throw Infeasible(
        fmt::format("tensor ({}) and data ({}) parallel sizes must be >= 1", t, plan.data.size));
  }
  if (model.heads <= 0 || model.hidden % model.heads != 0) {
    throw Infeasible(
        fmt::format("hidden {} is not divisible by heads {}", model.hidden, model.heads));
  }
  if (model.heads % t != 0 || model.ffn % t != 0) {
    throw Infeasible(fmt::format("heads {} and ffn {} must be divisible by the TP size {}",
                                 model.heads, model.ffn, t));
  }
  const std::int64_t per_step = training.micro_batch * plan.data.size;
  if (training.micro_batch < 1 || training.global_batch % per_step != 0 ||
      training.global_batch < per_step) {
    throw Infeasible(fmt::format(
        "global batch {} is not a positive multiple of micro batch {} x data parallel {}",
        training.global_batch, training.micro_batch, plan.data.size));
  }
  check_size_limits(model, plan, training);
}

program::Program build_program(const ModelSpec& model, const ParallelPlan& plan,
                               const TrainingSpec& training, ProgramScope scope,
                               const ExecutorOptions& options) {
  check_supported(model, plan, training);
  const RankLayout layout(plan);
  const std::int64_t world = layout.world_size();
  const std::int64_t t = layout.tp_size();
  const std::int64_t d = layout.dp_size();

  program::Program prog;
  prog.world_size = static_cast<std::int32_t>(world);
  // TP groups (one per DP index) form family 0; DP groups (one per TP index) family 1.
  for (std::int64_t dp = 0; dp < d; ++dp) {
    program::Group g;
    g.id = static_cast<program::GroupId>(prog.groups.size());
    g.kind = program::GroupKind::tp;
    g.family = 0;
    for (std::int64_t r : layout.tp_group(layout.rank_of({0, dp, 0}))) {
      g.ranks.push_back(static_cast<program::Rank>(r));
    }
    prog.groups.push_back(std::move(g));
  }
  for (std::int64_t tp = 0; tp < t; ++tp) {
    program::Group g;
    g.id = static_cast<program::GroupId>(prog.groups.size());
    g.kind = program::GroupKind::dp;
    g.family = 1;
    for (std::int64_t r : layout.dp_group(layout.rank_of({tp, 0, 0}))) {
      g.ranks.push_back(static_cast<program::Rank>(r));
    }
    prog.groups.push_back(std::move(g));
  }

  const GptShape shape = GptShape::of(model, model.padded_vocab(t), training.micro_batch,
                                      options.hidden_dropout, options.attention_dropout);

  IterationConfig config;
  config.micro_batches = training.micro_batches_per_replica(d);
  config.data_parallel = d;
  config.global_tokens = training.global_batch * model.seq_len;
  config.overlap_grad_reduce = plan.data.overlap_grad_reduce;
  GptOptions gpt_options{plan.tensor.sequence_parallel, plan.recompute};
  shard_model_state(gpt_options, plan.data.zero);

  // With TP and DP only every rank runs the same ops on its own groups: rank 0 stands for all.
  const std::int64_t recorded = scope == ProgramScope::every_rank ? world : 1;
  prog.ranks.reserve(static_cast<std::size_t>(recorded));
  for (std::int64_t rank = 0; rank < recorded; ++rank) {
    const RankCoordinates c = layout.coordinates(rank);
    program::RankProgram& out = prog.ranks.emplace_back();
    out.rank = static_cast<program::Rank>(rank);
    MetaBackend meta(out, prog.names, static_cast<program::GroupId>(c.dp),
                     static_cast<program::GroupId>(d + c.tp), t, d);
    {
      GptModel gpt(meta, shape, {c.tp, t}, gpt_options);
      const OptimizerLayout optimizer_layout{plan.data.zero, d, c.dp, default_bucket_size(d)};
      OptimizerState optimizer = make_optimizer_state(meta, gpt, optimizer_layout);
      Tensor loss = run_iteration(meta, gpt, optimizer, config);
      loss.reset();
      // Parameters, gradients and optimizer state outlive the iteration: no Free for them.
      meta.finish();
    }
  }
  prog.representative.resize(static_cast<std::size_t>(world));
  for (std::int64_t rank = 0; rank < world; ++rank) {
    prog.representative[static_cast<std::size_t>(rank)] =
        scope == ProgramScope::every_rank ? static_cast<std::int32_t>(rank) : 0;
  }
  return prog;
}

program::Program build_program(const Scenario& scenario, ProgramScope scope) {
  return build_program(scenario.model, scenario.parallel, scenario.training, scope);
}

}  // namespace trainsim
