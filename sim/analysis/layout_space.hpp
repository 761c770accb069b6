#pragma once
// The layouts `trainsim plan` searches: every way to run a model's training on a number of
// GPUs at a global batch that the executor accepts. One job: enumerate and describe; nothing
// here times or ranks a layout (layout_estimate, layout_search do).
//
// A layout is a ParallelPlan plus a micro batch. The axes: tensor kind and size (1D: t
// dividing heads and ffn, with and without sequence parallelism; 2D q²; 2.5D q²·d; 3D q³,
// each grid in its kind's default order), context-parallel size c (1, or where the model runs
// context parallelism: flash attention, RoPE, 1D, seq_len divisible by 2c; up to
// max_context), expert-parallel size e (mixture-of-experts models: every e dividing the
// experts and the stage's t·c·d GPUs the expert groups are drawn from; 1 otherwise),
// pipeline size p dividing the layers, schedule and
// chunks (p = 1: plain gradient accumulation, or layered with one layer per chunk; p >= 2:
// gpipe, 1f1b, interleaved and breadth-first with every chunk count v >= 2 whose p·v divides
// the layers, layered with v = layers / p), or a pipeline size p >= 3 that does not divide the
// layers but does once its first and last stages hold one layer less (Megatron's
// --decoder-first/last-pipeline-num-layers; Llama 3 405B's 7 + 14 × 8 + 7), with gpipe and
// 1f1b, the schedules that model uneven stages; data parallel size d = gpus / (t·c·p), ZeRO stage
// (0 to 3; only 0 when d = 1, where sharding changes nothing), recomputation (none,
// selective, full), micro batch (divisors of the batch per replica up to max_micro_batch).
// Each candidate passes the executor's own check (check_supported, which also covers the
// grid rules of the scenario loader), so only layouts the executor accepts are returned.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/model_spec.hpp"
#include "models/parallel_plan.hpp"

namespace trainsim::sim {

struct Layout {
  ParallelPlan plan;
  std::int64_t micro_batch = 1;
  std::optional<Fp8Recipe> fp8{};  ///< the scenario's precision, the same for every layout
};

/// "1d t=8 sp · pp 64 interleaved v=2 · dp 6 zero 1 · recompute full · mb 1"; uneven stages
/// as "pp 16 1f1b first 7 last 7".
std::string describe(const Layout& layout);

struct LayoutSpaceOptions {
  /// Largest micro batch tried. Megatron's runs use 1 to 16; larger ones rarely fit a large
  /// model and multiply the space (a hand-chosen default, disclosed in the README).
  std::int64_t max_micro_batch = 16;
  bool tensor_grids = true;         ///< also 2D, 2.5D and 3D tensor parallelism
  /// Largest context-parallel size tried (Llama 3 used 16 at 128k tokens).
  std::int64_t max_context = 16;
  bool overlap_grad_reduce = true;  ///< the data-parallel reduction's overlap, not searched
  /// The parameter gather's overlap for ZeRO 1 and 2 layouts (the scenario's), not searched.
  bool overlap_param_gather = false;
  /// TP communication overlap for 1D layouts with SP (the scenario's), not searched.
  bool tp_comm_overlap = false;
  std::optional<Fp8Recipe> fp8{};   ///< FP8 GEMMs (the scenario's training.precision), not searched
  /// When set, only layouts it keeps are enumerated (a caller's sub-space: one schedule
  /// family, a fixed tensor block); applied before the executor's check.
  std::function<bool(const Layout&)> keep;
};

/// Every valid layout of `model` training `global_batch` sequences on exactly `gpus` GPUs, in a
/// fixed order (tensor, pipeline, data, recompute, micro batch). Throws Infeasible naming the
/// value for gpus < 1 or global_batch < 1; an empty result means nothing is valid (the caller
/// says why: layout_search::explain_empty_space).
std::vector<Layout> enumerate_layouts(const ModelSpec& model, std::int64_t gpus,
                                      std::int64_t global_batch,
                                      const LayoutSpaceOptions& options = {});

/// The TrainingSpec of `layout` at `global_batch` (adam, training mode).
TrainingSpec training_of(const Layout& layout, std::int64_t global_batch);

/// Micro batches per data-parallel replica of `layout` at `global_batch`.
constexpr std::int64_t replica_micro_batches(const Layout& layout, std::int64_t global_batch) {
  return global_batch / (layout.micro_batch * layout.plan.data.size);
}

}  // namespace trainsim::sim
