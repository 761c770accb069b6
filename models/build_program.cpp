#include "models/build_program.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "models/errors.hpp"
#include "models/expert_parallel.hpp"
#include "models/meta_backend.hpp"
#include "models/op_list_pool.hpp"
#include "models/parallel_for.hpp"
#include "models/pipeline_schedule.hpp"
#include "models/program_size.hpp"
#include "models/rank_layout.hpp"
#include "models/tensor_grid.hpp"
#include "models/train_step.hpp"
#include "models/transformer.hpp"

namespace trainsim {

namespace {

constexpr std::array kCubeGroups{CommGroup::input, CommGroup::weight, CommGroup::output,
                                 CommGroup::input_weight, CommGroup::output_weight};

// The communicators of one rank as Program group ids (-1: none).
struct RankGroups {
  RankGroups() { of.fill(-1); }
  std::array<program::GroupId, kCommGroupCount> of{};
  program::GroupId operator[](CommGroup g) const { return of[static_cast<std::size_t>(g)]; }
};

// Every group of the plan, ranks in ring order: 1D TP groups, gradient (DP; 2.5D: depth x DP)
// groups, grid rows, grid columns, and the five groups of each cube. Groups that are images of
// each other under the plan's symmetry share a family (one per kind), so a representative
// replay launches them together.
std::vector<RankGroups> add_groups(program::Program& prog, const RankLayout& layout,
                                   bool model_group, bool sharded, bool experts) {
  const std::int64_t world = layout.world_size();
  std::vector<RankGroups> of(static_cast<std::size_t>(world));
  const auto add_kind = [&](program::GroupKind kind, std::int32_t family, CommGroup slot,
                            auto members_of) {
    for (std::int64_t rank = 0; rank < world; ++rank) {
      if (of[static_cast<std::size_t>(rank)][slot] >= 0) continue;  // in a group made already
      const std::vector<std::int64_t> members = members_of(rank);
      if (members.front() != rank) continue;  // made with its first member
      program::Group g;
      g.id = static_cast<program::GroupId>(prog.groups.size());
      g.kind = kind;
      g.family = family;
      for (const std::int64_t m : members) {
        g.ranks.push_back(static_cast<program::Rank>(m));
        of[static_cast<std::size_t>(m)].of[static_cast<std::size_t>(slot)] = g.id;
      }
      prog.groups.push_back(std::move(g));
    }
  };
  using program::GroupKind;
  if (!layout.grid() && !layout.cube()) {
    add_kind(GroupKind::tp, 0, CommGroup::tensor,
             [&](std::int64_t r) { return layout.tp_group(r); });
  }
  add_kind(GroupKind::dp, 1, CommGroup::data,
           [&](std::int64_t r) { return layout.gradient_group(r); });
  if (layout.grid()) {
    add_kind(GroupKind::tp, 2, CommGroup::row, [&](std::int64_t r) { return layout.row_group(r); });
    add_kind(GroupKind::tp, 3, CommGroup::column,
             [&](std::int64_t r) { return layout.column_group(r); });
  }
  if (layout.cube()) {
    std::int32_t family = 4;
    for (const CommGroup g : kCubeGroups) {
      add_kind(GroupKind::tp, family++, g, [&](std::int64_t r) { return layout.cube_group(r, g); });
    }
  }
  // A MoE layer's expert-parallel groups (token all-to-all) and expert-data-parallel groups
  // (the experts' gradient sums, DP traffic).
  if (experts && layout.ep_size() > 1) {
    add_kind(GroupKind::ep, 11, CommGroup::expert,
             [&](std::int64_t r) { return layout.expert_group(r); });
  }
  if (experts && layout.expert_data_size() > 1) {
    add_kind(GroupKind::dp, 12, CommGroup::expert_data,
             [&](std::int64_t r) { return layout.expert_data_group(r); });
  }
  // Megatron's embedding groups: the first and the last stage of each pipeline.
  if (layout.pp_size() > 1) {
    add_kind(GroupKind::embedding, 9, CommGroup::embedding, [&](std::int64_t r) {
      const std::vector<std::int64_t> stages = layout.pp_group(r);
      const RankCoordinates c = layout.coordinates(r);
      if (c.pp != 0 && c.pp != layout.pp_size() - 1) return std::vector<std::int64_t>{-1};
      return std::vector<std::int64_t>{stages.front(), stages.back()};
    });
  }
  // The optimizer step's model groups (RankLayout::model_group), images of each other under
  // the DP (and 2.5D depth) translation, with a kind of their own: a rank waits at their tiny
  // all-reduces for every stage's backward, which is neither TP nor DP traffic.
  if (model_group && layout.model_group(0, sharded).size() > 1) {
    add_kind(GroupKind::optimizer, 10, CommGroup::model,
             [&](std::int64_t r) { return layout.model_group(r, sharded); });
  }
  return of;
}

// The ranks whose programs are recorded. With 1D TP and DP every rank runs the same ops on
// its own groups, so rank 0 stands for all. On a SUMMA grid the ranks differ (device (i, j)
// is the root of step i of the column reductions and step j of the row reductions, which
// decides where its accumulations and frees fall), so one whole grid is recorded: that of
// depth layer 0 of DP replica 0; the other depth layers and replicas run the same programs
// on their own batch. A cube's ranks run the same ops, but on five kinds of group whose
// members a replay must all launch, so the whole cube of DP replica 0 is recorded.
// With a pipeline the stages run different layers and schedules: each stage's first rank
// (1D) or its TP block of DP replica 0 (its depth-0 grid, its cube) is recorded and stands for
// the stage's other ranks. Each CP rank of those is recorded too, unless `one_cp_rank`
// (cp_ring_alike): then CP rank 0 stands for its ring. `first_rank`: rank 0 alone.
std::vector<std::int64_t> recorded_ranks(const RankLayout& layout, ProgramScope scope,
                                         bool one_cp_rank) {
  if (scope == ProgramScope::first_rank) return {0};
  std::vector<std::int64_t> ranks;
  for (std::int64_t rank = 0; rank < layout.world_size(); ++rank) {
    const RankCoordinates c = layout.coordinates(rank);
    const std::int64_t on_first_stage = layout.rank_of({c.tp, c.dp, 0, c.cp});
    const bool stands_for_stage = (c.tp == 0 && c.dp == 0) || layout.in_first_block(on_first_stage);
    if (scope == ProgramScope::every_rank || (stands_for_stage && (!one_cp_rank || c.cp == 0)))
      ranks.push_back(rank);
  }
  return ranks;
}

// Whether CP rank 0 of a ring stands for its other ranks on nodes of `gpus_per_node` GPUs
// (0: unknown). Their programs are images of each other under the ring's rotation when
// Megatron's split gives every rank the same visible pairs at each ring step (a causal mask
// alone: a sliding window does not) and nothing else tells the CP ranks apart (a MoE layer's
// experts do: their place in the expert-parallel group follows the CP rank, and with it
// their share of the routed tokens), and their timings too when every hop of the ring (TP
// size apart) crosses the same kind of link: the whole ring inside one node, or each CP
// rank's TP group on whole nodes of its own (each hop then leaves from the same local GPU,
// so the same NIC). Elsewhere some hops stay inside a node and others leave it, and the
// ranks run at different paces.
bool cp_ring_alike(const ModelSpec& model, const RankLayout& layout, std::int64_t gpus_per_node) {
  const std::int64_t c = layout.cp_size();
  const std::int64_t t = layout.tp_size();
  if (c < 2 || gpus_per_node < 1 || model.attention_window || model.moe) return false;
  return gpus_per_node % (c * t) == 0 || t % gpus_per_node == 0;
}

// For every world rank, the index in `recorded` of the rank standing for it: itself when
// recorded, else the recorded rank on the same grid cell (depth 0, replica 0) or cube cell
// (replica 0), else the stage's TP rank 0 of replica 0 with the same CP rank (CP rank 0 where
// that one stands for its ring).
std::vector<std::int32_t> representatives(const RankLayout& layout,
                                          const std::vector<std::int64_t>& recorded,
                                          bool one_cp_rank) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(layout.world_size()), 0);
  std::vector<std::int32_t> index_of(static_cast<std::size_t>(layout.world_size()), -1);
  for (std::size_t i = 0; i < recorded.size(); ++i)
    index_of[static_cast<std::size_t>(recorded[i])] = static_cast<std::int32_t>(i);
  for (std::int64_t rank = 0; rank < layout.world_size(); ++rank) {
    std::int32_t rep = index_of[static_cast<std::size_t>(rank)];
    const RankCoordinates c = layout.coordinates(rank);
    const std::int64_t stage = c.pp;
    if (rep < 0 && layout.grid()) {
      GridCell cell = layout.cell(rank);
      cell.depth = 0;
      rep = index_of[static_cast<std::size_t>(
          layout.rank_of({layout.grid()->index(cell), 0, stage, c.cp}))];
    }
    if (rep < 0 && layout.cube()) {
      const std::int64_t same_cell = layout.rank_of({c.tp, 0, stage, c.cp});
      rep = index_of[static_cast<std::size_t>(same_cell)];
    }
    if (rep < 0) {
      const std::int64_t cp = one_cp_rank ? 0 : c.cp;
      rep = index_of[static_cast<std::size_t>(layout.rank_of({0, 0, stage, cp}))];
    }
    out[static_cast<std::size_t>(rank)] = std::max(rep, 0);
  }
  return out;
}

}  // namespace

std::optional<std::string> context_parallel_problem(const ModelSpec& model,
                                                    const ParallelPlan& plan) {
  const std::int64_t c = plan.context.size;
  if (c < 1) return fmt::format("{} ranks; use 1 or more", c);
  if (c == 1) return std::nullopt;
  if (model.attention != AttentionKind::flash) {
    return fmt::format(
        "context parallelism of size {} runs its ring in fused attention kernels (Transformer "
        "Engine's, as Megatron-Core does); set model.attention to flash",
        c);
  }
  if (plan.tensor.kind != TensorKind::one_d) {
    return fmt::format("context parallelism runs with 1d tensor parallelism, not {}",
                       to_string(plan.tensor.kind));
  }
  if (model.position != PositionKind::rope) {
    return "context parallelism is modelled with rotary positions (model.position: rope); "
           "learned absolute positions are not";
  }
  if (model.seq_len % (2 * c) != 0) {
    return fmt::format(
        "seq_len {} is not divisible by 2 x context.size = {} (each sequence is cut into 2c "
        "equal chunks)",
        model.seq_len, 2 * c);
  }
  const std::int64_t t = plan.tensor.size;
  if (plan.tensor.sequence_parallel && (model.seq_len / c) % t != 0) {
    return fmt::format(
        "sequence parallelism splits each rank's {} tokens (seq_len {} / context.size {}) over "
        "tensor.size {}, which does not divide them",
        model.seq_len / c, model.seq_len, c, t);
  }
  return std::nullopt;
}

bool uses_model_group(const ModelSpec& model, const TrainingSpec& training) {
  return !training.inference() && (training.clip_grad > 0.0 || model.dtype == DType::fp16);
}

bool norm_over_every_rank(const ModelSpec& model, const ParallelPlan& plan) {
  return plan.data.zero >= 1 || model.moe.has_value();
}

IterationConfig iteration_config(const ModelSpec& model, const ParallelPlan& plan,
                                 const TrainingSpec& training) {
  const RankLayout layout(plan);
  IterationConfig config;
  config.micro_batches = training.micro_batches_per_replica(layout.dp_size());
  config.data_parallel = layout.gradient_group_size();
  if (model.moe) config.expert_data_parallel = layout.expert_data_size();
  config.global_tokens = training.global_batch * model.seq_len;
  config.overlap_grad_reduce = plan.data.overlap_grad_reduce;
  config.overlap_param_gather = plan.data.overlap_param_gather;
  config.clip_grad = training.inference() ? 0.0 : training.clip_grad;
  if (uses_model_group(model, training)) {
    config.model_parallel =
        static_cast<std::int64_t>(layout.model_group(0, norm_over_every_rank(model, plan)).size());
  }
  return config;
}

ExpertParallelPosition expert_position(const RankLayout& layout, std::int64_t rank) {
  return {layout.expert_position(rank), layout.ep_size()};
}

OptimizerLayout optimizer_layout_of(const ModelSpec& model, const ParallelPlan& plan,
                                    const RankLayout& layout, std::int64_t rank) {
  const std::int64_t gradient_size = layout.gradient_group_size();
  OptimizerLayout out{plan.data.zero, gradient_size, layout.gradient_group_position(rank),
                      default_bucket_size(gradient_size)};
  if (model.moe) {
    out.expert_data_parallel = layout.expert_data_size();
    out.expert_data_parallel_rank = layout.expert_data_position(rank);
    out.experts = true;
  }
  return out;
}

PipelineShape pipeline_shape(const ParallelPlan& plan, const TrainingSpec& training) {
  return {plan.pipeline.schedule, plan.pipeline.size,
          training.micro_batches_per_replica(plan.data.size), plan.pipeline.chunks};
}

ModelPart model_part(const ModelSpec& model, const ParallelPlan& plan, std::int64_t stage) {
  // Chunk c of stage s holds block c·p + s of L/(p·v) layers (Megatron's virtual stages).
  const std::int64_t p = plan.pipeline.size;
  const std::int64_t v = plan.pipeline.chunks;
  if (plan.pipeline.uneven()) {
    // One chunk per stage, the first and last stages' counts as stated.
    return {plan.pipeline.stage_first_layer(model.layers, stage),
            plan.pipeline.stage_layers(model.layers, stage), stage == 0, stage == p - 1, 1, 0};
  }
  const std::int64_t per_chunk = model.layers / (p * v);
  return {stage * per_chunk, per_chunk, stage == 0, stage == p - 1, v, p * per_chunk};
}

ContextParallelPosition context_position(const RankLayout& layout, std::int64_t rank) {
  const RankCoordinates c = layout.coordinates(rank);
  const std::int64_t size = layout.cp_size();
  RankCoordinates next = c;
  next.cp = (c.cp + 1) % size;
  RankCoordinates previous = c;
  previous.cp = (c.cp + size - 1) % size;
  return {c.cp, size, layout.rank_of(next), layout.rank_of(previous)};
}

PipelinePosition pipeline_position(const RankLayout& layout, const ParallelPlan& plan,
                                   const TrainingSpec& training, std::int64_t rank) {
  const RankCoordinates c = layout.coordinates(rank);
  PipelinePosition pp;
  pp.shape = pipeline_shape(plan, training);
  pp.stage = c.pp;
  // With model chunks the last stage feeds the first (virtual stage c·p + p - 1 -> (c+1)·p).
  const std::int64_t p = layout.pp_size();
  const bool wrap = plan.pipeline.chunks > 1;
  if (c.pp > 0 || wrap) pp.previous = layout.rank_of({c.tp, c.dp, (c.pp + p - 1) % p, c.cp});
  if (c.pp + 1 < p || wrap) pp.next = layout.rank_of({c.tp, c.dp, (c.pp + 1) % p, c.cp});
  // Megatron's scatter/gather is for 1D, whose boundary is replicated over TP; a 2D/3D
  // boundary is already partitioned over the grid, each cell sends its own block.
  if (plan.tensor.kind == TensorKind::one_d && !plan.tensor.sequence_parallel &&
      plan.tensor.size > 1) {
    pp.scatter_parts = plan.tensor.size;
    pp.scatter_part = c.tp;
  }
  return pp;
}

std::optional<std::string> support_problem(const ModelSpec& model, const ParallelPlan& plan,
                                           const TrainingSpec& training) {
  if (plan.pipeline.size < 1) {
    return std::string(
        fmt::format("parallel.pipeline.size: {} stages; use 1 or more", plan.pipeline.size));
  }
  const PipelineSchedule schedule = plan.pipeline.schedule;
  if (plan.pipeline.size == 1 && schedule == PipelineSchedule::breadth_first) {
    return std::string(
        "parallel.pipeline.schedule: breadth-first without a pipeline (pipeline.size 1) loops "
        "over nothing; use layered (gradient accumulation layer by layer) or pipeline.size >= 2");
  }
  if (const auto uneven = plan.pipeline.uneven_problem(model.layers)) {
    return std::string(fmt::format("parallel.pipeline: {}", *uneven));
  }
  if (scheduled_passes(plan)) {
    const PipelineParallel& pp = plan.pipeline;
    if (schedule == PipelineSchedule::layered && model.layers != pp.size * pp.chunks) {
      return std::string(
          fmt::format("parallel.pipeline.chunks: schedule layered places one layer per chunk, "
                      "so chunks {} must be layers / pipeline.size = {} / {}",
                      pp.chunks, model.layers, pp.size));
    }
    if (!pp.uneven() && model.layers % (pp.size * pp.chunks) != 0) {
      return std::string(
          fmt::format("model.layers: {} layers are not divisible by pipeline.size {} "
                      "x chunks {}",
                      model.layers, pp.size, pp.chunks));
    }
    if (training.global_batch % (training.micro_batch * plan.data.size) == 0) {
      if (const auto problem = pipeline_problem(pipeline_shape(plan, training))) {
        return std::string(fmt::format("parallel.pipeline.schedule: {}", *problem));
      }
    }
  }
  const std::int64_t t = plan.tensor.size;
  if (plan.tensor.kind != TensorKind::one_d && !model.gpt_layer()) {
    return std::string(
        fmt::format("parallel.tensor.kind: {} runs the GPT layer only; this model's {} (use 1d)",
                    to_string(plan.tensor.kind), model.non_gpt_features()));
  }
  if (plan.tensor.kind == TensorKind::one_d && model.key_value_heads() % t != 0) {
    return std::string(
        fmt::format("parallel.tensor.size: kv_heads {} is not divisible by tensor.size {}",
                    model.key_value_heads(), t));
  }
  if (const std::optional<GridProblem> grid = tensor_grid_problem(model, plan, training)) {
    return std::string(fmt::format("{}: {}", grid->field, grid->message));
  }
  if (plan.tensor.sequence_parallel && t < 2) {
    return std::string(fmt::format(
        "parallel.tensor.sequence_parallel: sequence parallelism needs tensor.size > 1 (got {}), "
        "as in Megatron-LM; set sequence_parallel to false or tensor.size to 2 or more",
        t));
  }
  if (plan.tensor.sequence_parallel && model.seq_len % t != 0) {
    return std::string(fmt::format(
        "parallel.tensor.sequence_parallel: seq_len {} is not divisible by tensor.size {}",
        model.seq_len, t));
  }
  if (const std::optional<std::string> overlap = tp_comm_overlap_problem(plan)) {
    return std::string(fmt::format("parallel.tensor.comm_overlap: {}", *overlap));
  }
  if (training.inference() && plan.recompute != Recompute::none) {
    return std::string(fmt::format(
        "parallel.recompute: recompute {} needs a backward pass; inference has none (use none)",
        to_string(plan.recompute)));
  }
  if (training.inference() && plan.data.zero != 0) {
    return std::string(fmt::format(
        "parallel.data.zero: ZeRO stage {} shards training state; inference has none (use 0)",
        plan.data.zero));
  }
  if (plan.data.zero < 0 || plan.data.zero > 3) {
    return std::string(fmt::format("parallel.data.zero: ZeRO stage {} does not exist; use 0 to 3",
                                   plan.data.zero));
  }
  if (t < 1 || plan.data.size < 1) {
    return std::string(
        fmt::format("tensor ({}) and data ({}) parallel sizes must be >= 1", t, plan.data.size));
  }
  if (model.heads <= 0 || (!model.head_size && model.hidden % model.heads != 0)) {
    return std::string(fmt::format(
        "hidden {} is not divisible by heads {} (give model.head_dim for a free head dimension)",
        model.hidden, model.heads));
  }
  // The rules of the model's features, for callers that do not come through the scenario
  // loader (which states them at the field).
  if (model.position == PositionKind::rope && model.head_dim() % 2 != 0) {
    return std::string(
        fmt::format("model.head_dim: RoPE rotates pairs of a head's dimensions; "
                    "head_dim {} is odd",
                    model.head_dim()));
  }
  if (model.attention == AttentionKind::flash && model.dtype != DType::bf16 &&
      model.dtype != DType::fp16) {
    return std::string(
        fmt::format("model.attention: flash runs in bf16 or fp16, not {}", to_string(model.dtype)));
  }
  if (model.attention_window && model.attention != AttentionKind::flash) {
    return std::string("model.attention_window: sliding windows run in the flash kernels");
  }
  if (!model.bias && model.activation == Activation::gelu) {
    return std::string("model.bias: the GeLU MLP's fused bias-GeLU needs its bias");
  }
  if (model.qk_norm && model.norm != NormKind::rmsnorm) {
    return std::string("model.qk_norm: QK-norm is an RMSNorm; it needs norm rmsnorm");
  }
  if (training.fp8 && (model.dtype != DType::bf16 || plan.tensor.kind != TensorKind::one_d)) {
    return std::string(fmt::format(
        "training.precision: fp8 runs Transformer Engine's 1d linears beside a bf16 model (got "
        "dtype {}, tensor kind {})",
        to_string(model.dtype), to_string(plan.tensor.kind)));
  }
  if (const std::optional<std::string> cp = context_parallel_problem(model, plan)) {
    return std::string(fmt::format("parallel.context.size: {}", *cp));
  }
  if (plan.tensor.kind == TensorKind::one_d && (model.heads % t != 0 || model.ffn % t != 0)) {
    return std::string(fmt::format("heads {} and ffn {} must be divisible by the TP size {}",
                                   model.heads, model.ffn, t));
  }
  const std::int64_t per_step = training.micro_batch * plan.data.size;
  if (training.micro_batch < 1 || training.global_batch % per_step != 0 ||
      training.global_batch < per_step) {
    return std::string(fmt::format(
        "global batch {} is not a positive multiple of micro batch {} x data parallel {}",
        training.global_batch, training.micro_batch, plan.data.size));
  }
  if (model.moe) {
    if (model.moe->top_k > model.moe->experts || model.activation != Activation::swiglu) {
      return std::string(
          fmt::format("model.moe: top_k {} of {} experts with activation {}; the "
                      "experts are SwiGLU MLPs and top_k at most the experts",
                      model.moe->top_k, model.moe->experts, to_string(model.activation)));
    }
    if (model.moe->shared_experts > 0 && model.bias) {
      return std::string(
          "model.moe.shared_experts: shared experts are modelled without biases "
          "(model.bias false)");
    }
  }
  if (const auto moe = moe_parallel_problem(model, plan)) {
    return std::string(fmt::format("{}: {}", moe->field, moe->message));
  }
  return size_limit_problem(model, plan, training);
}

void check_supported(const ModelSpec& model, const ParallelPlan& plan,
                     const TrainingSpec& training) {
  if (auto problem = support_problem(model, plan, training)) throw Infeasible(std::move(*problem));
}

program::Program build_program(const ModelSpec& model, const ParallelPlan& plan,
                               const TrainingSpec& training, ProgramScope scope,
                               std::int64_t gpus_per_node, OpListPool* pool) {
  check_supported(model, plan, training);
  const RankLayout layout(plan);
  const std::int64_t world = layout.world_size();
  const std::int64_t t = layout.tp_size();

  program::Program prog;
  prog.world_size = static_cast<std::int32_t>(world);
  prog.axes = {static_cast<std::int32_t>(t), static_cast<std::int32_t>(layout.cp_size()),
               static_cast<std::int32_t>(layout.dp_size()),
               static_cast<std::int32_t>(layout.pp_size())};
  const bool one_cp_rank =
      scope == ProgramScope::representative && cp_ring_alike(model, layout, gpus_per_node);
  if (one_cp_rank) prog.gpus_per_node = static_cast<std::int32_t>(gpus_per_node);
  const std::vector<RankGroups> groups =
      add_groups(prog, layout, uses_model_group(model, training), norm_over_every_rank(model, plan),
                 model.moe.has_value());

  const std::int64_t depth = plan.tensor.kind == TensorKind::one_d ? 1 : plan.tensor.depth;
  const std::int64_t gradient_size = layout.gradient_group_size();
  const TransformerShape shape =
      TransformerShape::of(model, model.padded_vocab(plan.tensor.vocab_shards()),
                   training.micro_batch / depth, model.hidden_dropout, model.attention_dropout);

  const IterationConfig base_config = iteration_config(model, plan, training);
  TransformerOptions base_options{plan.tensor.sequence_parallel, plan.recompute};
  shard_model_state(base_options, plan.data.zero);
  base_options.forward_only = training.inference();
  base_options.fp8 = training.fp8;
  base_options.tp_comm_overlap = plan.tensor.comm_overlap;

  const std::vector<std::int64_t> recorded = recorded_ranks(layout, scope, one_cp_rank);
  check_recorded_size(model, plan, training, static_cast<std::int64_t>(recorded.size()));
  prog.ranks.resize(recorded.size());
  // Each rank's op list is reserved once, at the size limits' upper estimate of one stage's
  // ops: grown by doubling, the list and the copies it leaves behind would be first touched
  // (page faults) at about twice its final size. Pages reserved but never written cost no
  // memory (a list from `pool` has its pages mapped already: that is what it is for).
  const auto ops_per_rank =
      static_cast<std::size_t>(estimated_ops_per_stage(model, plan, training));
  // Each recorded rank is built on its own (in parallel), interning its op names in a table
  // of its own; merge_names then gives the ids one sequential build would have.
  std::vector<program::NameTable> names(recorded.size());
  const auto record = [&](std::size_t slot) {
    const std::int64_t rank = recorded[slot];
    IterationConfig config = base_config;
    const RankCoordinates c = layout.coordinates(rank);
    const RankGroups& g = groups[static_cast<std::size_t>(rank)];
    program::RankProgram& out = prog.ranks[slot];
    out.rank = static_cast<program::Rank>(rank);
    if (pool != nullptr) out.ops = pool->take(ops_per_rank);  // empty when none has the room
    out.ops.reserve(ops_per_rank);
    MetaBackend meta(out, names[slot], g[CommGroup::tensor], g[CommGroup::data], t, gradient_size);
    TensorParallelPosition position{c.tp, t, std::nullopt};
    if (const auto& grid = layout.grid()) {
      const std::int64_t q = grid->side();
      meta.bind(CommGroup::row, g[CommGroup::row], q);
      meta.bind(CommGroup::column, g[CommGroup::column], q);
      const GridCell cell = layout.cell(rank);
      position = {cell.row * q + cell.column, q * q, cell};
    }
    if (const auto& cube = layout.cube()) {
      const std::int64_t q = cube->side();
      for (const CommGroup group : kCubeGroups) {
        const bool pair = group == CommGroup::input_weight || group == CommGroup::output_weight;
        meta.bind(group, g[group], pair ? q * q : q);
      }
      position = {c.tp, t, std::nullopt, layout.cube_cell(rank)};
    }
    if (layout.pp_size() > 1) meta.bind(CommGroup::embedding, g[CommGroup::embedding], 2);
    if (config.model_parallel > 1) {
      meta.bind(CommGroup::model, g[CommGroup::model], config.model_parallel);
    }
    meta.bind(CommGroup::expert, g[CommGroup::expert], layout.ep_size());
    meta.bind(CommGroup::expert_data, g[CommGroup::expert_data], config.expert_data_parallel);
    TransformerOptions model_options = base_options;
    model_options.context = context_position(layout, rank);
    model_options.expert = expert_position(layout, rank);
    if (scheduled_passes(plan)) {
      model_options.part = model_part(model, plan, c.pp);
      config.pipeline = pipeline_position(layout, plan, training, rank);
    }
    {
      TransformerModel transformer(meta, shape, position, model_options);
      if (training.inference()) {
        run_inference(meta, transformer, config).reset();
        meta.finish();
        return;
      }
      const OptimizerLayout optimizer_layout = optimizer_layout_of(model, plan, layout, rank);
      OptimizerState optimizer = make_optimizer_state(meta, transformer, optimizer_layout);
      Tensor loss = run_iteration(meta, transformer, optimizer, config);
      loss.reset();
      // Parameters, gradients and optimizer state outlive the iteration: no Free for them.
      meta.finish();
    }
  };
  for_each_in_parallel(recorded.size(), record);
  program::merge_names(prog, names);
  prog.representative = representatives(layout, recorded, one_cp_rank);
  return prog;
}

program::Program build_program(const Scenario& scenario, ProgramScope scope,
                               std::int64_t gpus_per_node) {
  return build_program(scenario.model, scenario.parallel, scenario.training, scope, gpus_per_node);
}

}  // namespace trainsim
