#pragma once
// The explicit step that turns model + plan + training into the Program the simulator
// replays: runs one training iteration (inference mode: one step of forward passes) of the
// executor on the meta backend for each recorded rank (style.md §2). Throws Infeasible for plans
// the executor cannot run yet.

#include <cstdint>
#include <optional>
#include <string>

#include "models/transformer.hpp"
#include "models/parallel_plan.hpp"
#include "models/program.hpp"
#include "models/rank_layout.hpp"
#include "models/scenario.hpp"
#include "models/train_step.hpp"

namespace trainsim {

class OpListPool;

/// Which ranks get their own recorded program.
enum class ProgramScope : std::uint8_t {
  representative,  ///< one rank per class of identical ranks (1D TP + DP: rank 0 alone;
                   ///< 2D/2.5D: one q x q grid; 3D: one cube; a pipeline: that of each stage)
  every_rank,      ///< all world ranks
  first_rank       ///< rank 0 alone: what one GPU runs, for a floor on its kernels (the other
                   ///< members of its groups unrecorded: not a Program to replay)
};

/// The Program of one training iteration (`training.mode` inference: of the forward passes
/// over the global batch, no gradients, reductions or optimizer). Groups list every 1D TP group,
/// every gradient (DP; 2.5D: depth x DP) group, every grid row and every grid column, ranks in ring
/// order, one family per kind; with a pipeline every embedding group (first and last stage).
/// Throws Infeasible (check_supported) for breadth-first on one stage, pipelines whose shape
/// cannot run (pipeline_problem; layered with layers != p·v; uneven stages that do not add
/// up), sequence parallelism with TP 1, ZeRO stages outside 0-3, inference with recomputation
/// or ZeRO, or sizes that do not divide. Pipelines run with ZeRO 0-3 and in inference.
/// `gpus_per_node` (0: unknown) is the node size of the cluster the Program is for: given it,
/// a representative Program records CP rank 0 alone for a ring whose ranks it shows alike
/// (a causal mask without a window, no experts; the ring inside one node, or one CP rank per
/// whole nodes), and holds only for that node size (Program::gpus_per_node).
/// `pool` (may be null): op lists kept from earlier Programs, taken for the ranks' lists
/// (op_list_pool.hpp; the Program is the same either way).
program::Program build_program(const ModelSpec& model, const ParallelPlan& plan,
                               const TrainingSpec& training, ProgramScope scope,
                               std::int64_t gpus_per_node = 0, OpListPool* pool = nullptr);

/// Same, from a loaded scenario.
program::Program build_program(const Scenario& scenario, ProgramScope scope,
                               std::int64_t gpus_per_node = 0);

/// Why the executor does not support `plan` for `model` and `training`, naming the offending
/// value; nothing when it does. (A search asks this of every candidate: a returned message,
/// not a thrown one, which cost most of enumerating a layout space.)
std::optional<std::string> support_problem(const ModelSpec& model, const ParallelPlan& plan,
                                           const TrainingSpec& training);

/// Throws Infeasible with support_problem's message, if any.
void check_supported(const ModelSpec& model, const ParallelPlan& plan,
                     const TrainingSpec& training);

/// What keeps the executor from running `plan`'s context parallelism on `model` (its size is
/// 1 or more; above 1: flash attention, 1D TP, RoPE, seq_len divisible by 2c and, with SP, the
/// rank's s/c tokens by the TP size), or nullopt.
std::optional<std::string> context_parallel_problem(const ModelSpec& model,
                                                    const ParallelPlan& plan);

/// Whether the ranks run a pipeline schedule's pass list (run_pipeline): with 2 or more
/// stages, and layered gradient accumulation on one stage (§7.6's LGA, one layer per chunk).
constexpr bool scheduled_passes(const ParallelPlan& plan) {
  return plan.pipeline.size > 1 || plan.pipeline.schedule == PipelineSchedule::layered;
}

/// Whether the optimizer step all-reduces scalars over the model group (RankLayout::
/// model_group): in training, with gradient clipping or an fp16 model's loss scaling.
bool uses_model_group(const ModelSpec& model, const TrainingSpec& training);
/// Whether the gradient norm is summed over every rank rather than one copy of the model: the
/// gradients are sharded (ZeRO >= 1: each rank of a gradient group holds its own shard), or
/// the model has experts (each expert-parallel rank holds its own experts).
bool norm_over_every_rank(const ModelSpec& model, const ParallelPlan& plan);

/// What every rank of `plan` runs per iteration: micro batches per replica, the gradient
/// group's size, the global batch's tokens, overlap, clipping and the model group's size
/// (1 where the step all-reduces nothing over it); the pipeline position is per rank.
IterationConfig iteration_config(const ModelSpec& model, const ParallelPlan& plan,
                                 const TrainingSpec& training);

/// The pipeline of `plan`: schedule, stages, micro batches per replica, chunks.
PipelineShape pipeline_shape(const ParallelPlan& plan, const TrainingSpec& training);
/// The layers, embedding and head of pipeline stage `stage` (layers split evenly).
ModelPart model_part(const ModelSpec& model, const ParallelPlan& plan, std::int64_t stage);
/// World rank `rank`'s place in its context-parallel ring.
ContextParallelPosition context_position(const RankLayout& layout, std::int64_t rank);
/// World rank `rank`'s place in its expert-parallel group.
ExpertParallelPosition expert_position(const RankLayout& layout, std::int64_t rank);
/// How world rank `rank` buckets and shards its gradients and optimizer state: over its
/// gradient group, the experts' over their expert-data-parallel group.
OptimizerLayout optimizer_layout_of(const ModelSpec& model, const ParallelPlan& plan,
                                    const RankLayout& layout, std::int64_t rank);
/// World rank `rank`'s place in its pipeline: stage, neighbours, scatter/gather chunk.
PipelinePosition pipeline_position(const RankLayout& layout, const ParallelPlan& plan,
                                   const TrainingSpec& training, std::int64_t rank);

}  // namespace trainsim
