#pragma once
// How the model is split over GPUs: tensor, pipeline and data parallelism and recomputation.
// Validated against the model and training spec by inputs/scenario_loader; this struct holds
// values only.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "models/model_spec.hpp"

namespace trainsim {

/// Tensor-parallel scheme: 1D (Megatron), 2D (Optimus: SUMMA on a q x q grid), 2.5D
/// (Tesseract: d stacked q x q grids splitting the batch), 3D (Bian et al.: a q x q x q cube).
enum class TensorKind : std::uint8_t { one_d, two_d, two_and_half_d, three_d };

/// Which grid axis varies fastest over consecutive GPUs inside a tensor-parallel block, i.e.
/// which groups share a node: row-major keeps each row group (fixed row i, all columns j)
/// on adjacent GPUs (ColossalAI's in-group rank q·i + j + q²·k), column-major each column
/// group, depth-major (2.5D) each depth group (the q x q grids span nodes). The 3D cube
/// (device (i, j, k), parallelism-reference §5.1) names the group whose members are adjacent:
/// weight-major varies i fastest (ColossalAI's in-group rank i + q·(j + q·k)), input-major j
/// (then k, then i), output-major k (then i, then j).
enum class GridOrder : std::uint8_t {
  row_major,
  column_major,
  depth_major,
  weight_major,
  input_major,
  output_major
};

/// The order a kind gets when the scenario names none: ColossalAI's own rank layouts
/// (row-major for the 2D/2.5D grids, weight-major for the 3D cube; 1D has no grid).
constexpr GridOrder default_grid_order(TensorKind kind) {
  return kind == TensorKind::three_d ? GridOrder::weight_major : GridOrder::row_major;
}

enum class PipelineSchedule : std::uint8_t {
  gpipe,
  one_f_one_b,
  interleaved,
  breadth_first,
  layered
};

enum class Optimizer : std::uint8_t { adam };

/// What one step of the scenario does: a training iteration (forward, backward, gradient
/// reduction, optimizer) or inference (forward passes only: no gradients, no optimizer
/// state, nothing kept for a backward pass, dropout off).
enum class RunMode : std::uint8_t { training, inference };

constexpr std::string_view to_string(RunMode m) {
  return m == RunMode::training ? "training" : "inference";
}

/// Inverse of to_string; nullopt for an unknown name.
constexpr std::optional<RunMode> run_mode_from_string(std::string_view text) {
  constexpr std::array all{RunMode::training, RunMode::inference};
  for (RunMode m : all) {
    if (to_string(m) == text) return m;
  }
  return std::nullopt;
}

/// Text forms as written in scenario files and printed in reports.
constexpr std::string_view to_string(PipelineSchedule s) {
  switch (s) {
    case PipelineSchedule::gpipe:
      return "gpipe";
    case PipelineSchedule::one_f_one_b:
      return "1f1b";
    case PipelineSchedule::interleaved:
      return "interleaved";
    case PipelineSchedule::breadth_first:
      return "breadth-first";
    case PipelineSchedule::layered:
      return "layered";
  }
  return "?";
}

constexpr std::string_view to_string(Recompute r) {
  switch (r) {
    case Recompute::none:
      return "none";
    case Recompute::selective:
      return "selective";
    case Recompute::full:
      return "full";
  }
  return "?";
}

constexpr std::string_view to_string(TensorKind k) {
  switch (k) {
    case TensorKind::one_d:
      return "1d";
    case TensorKind::two_d:
      return "2d";
    case TensorKind::two_and_half_d:
      return "2.5d";
    case TensorKind::three_d:
      return "3d";
  }
  return "?";
}

constexpr std::string_view to_string(GridOrder o) {
  switch (o) {
    case GridOrder::row_major:
      return "row-major";
    case GridOrder::column_major:
      return "column-major";
    case GridOrder::depth_major:
      return "depth-major";
    case GridOrder::weight_major:
      return "weight-major";
    case GridOrder::input_major:
      return "input-major";
    case GridOrder::output_major:
      return "output-major";
  }
  return "?";
}

/// Inverse of to_string; nullopt for an unknown name.
constexpr std::optional<TensorKind> tensor_kind_from_string(std::string_view text) {
  constexpr std::array all{TensorKind::one_d, TensorKind::two_d, TensorKind::two_and_half_d,
                           TensorKind::three_d};
  for (TensorKind k : all) {
    if (to_string(k) == text) return k;
  }
  return std::nullopt;
}

/// Inverse of to_string; nullopt for an unknown name.
constexpr std::optional<GridOrder> grid_order_from_string(std::string_view text) {
  constexpr std::array all{GridOrder::row_major,   GridOrder::column_major,
                           GridOrder::depth_major, GridOrder::weight_major,
                           GridOrder::input_major, GridOrder::output_major};
  for (GridOrder o : all) {
    if (to_string(o) == text) return o;
  }
  return std::nullopt;
}

/// Inverse of to_string; nullopt for an unknown name.
constexpr std::optional<PipelineSchedule> pipeline_schedule_from_string(std::string_view text) {
  constexpr std::array all{PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b,
                           PipelineSchedule::interleaved, PipelineSchedule::breadth_first,
                           PipelineSchedule::layered};
  for (PipelineSchedule s : all) {
    if (to_string(s) == text) return s;
  }
  return std::nullopt;
}

/// Inverse of to_string; nullopt for an unknown name.
constexpr std::optional<Recompute> recompute_from_string(std::string_view text) {
  constexpr std::array all{Recompute::none, Recompute::selective, Recompute::full};
  for (Recompute r : all) {
    if (to_string(r) == text) return r;
  }
  return std::nullopt;
}

struct TensorParallel {
  TensorKind kind = TensorKind::one_d;
  /// GPUs in the tensor-parallel block: t (1D), q² (2D), q²·d (2.5D), q³ (3D)
  std::int64_t size = 1;
  bool sequence_parallel = false;
  std::int64_t depth = 1;  ///< 2.5D: stacked q x q grids d (1 otherwise)
  GridOrder grid_order = GridOrder::row_major;
  /// Transformer Engine's TP communication overlap (--tp-comm-overlap; 1D with SP): the
  /// layers' sequence all-gathers and reduce-scatters run as ring exchanges under the GEMMs.
  bool comm_overlap = false;

  /// Grid side q: SUMMA grid (size / depth = q²) or cube edge (size = q³); 1 for 1D. The
  /// largest q that fits when size is not exact.
  std::int64_t grid_side() const {
    if (kind == TensorKind::one_d) return 1;
    const std::int64_t cube = kind == TensorKind::three_d ? 1 : 0;
    std::int64_t q = 1;
    while ((q + 1) * (q + 1) * (cube ? q + 1 : depth) <= size)
      ++q;
    return q;
  }
  /// Shards of the vocabulary (embedding rows, logits columns): t (1D), q (2D, 2.5D), q² (3D:
  /// the word embedding is split into q² row chunks, see models/README.md).
  std::int64_t vocab_shards() const {
    if (kind == TensorKind::one_d) return size;
    const std::int64_t q = grid_side();
    return kind == TensorKind::three_d ? q * q : q;
  }
};

struct PipelineParallel {
  std::int64_t size = 1;
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  std::int64_t chunks = 1;  ///< model chunks per stage (interleaving factor v)
  /// Uneven stages (Megatron's --decoder-first/last-pipeline-num-layers, Llama 3's lighter
  /// first and last stages, which also hold the embedding and the head): the layers of the
  /// first and of the last stage, the rest split evenly over the stages between.
  std::optional<std::int64_t> first_stage_layers{};
  std::optional<std::int64_t> last_stage_layers{};

  bool uneven() const { return first_stage_layers.has_value() || last_stage_layers.has_value(); }
  /// Layers of stage `stage` of a model of `layers` layers (one chunk per stage when uneven).
  std::int64_t stage_layers(std::int64_t layers, std::int64_t stage) const {
    if (!uneven()) return layers / (size * chunks) * chunks;
    if (stage == 0 && first_stage_layers) return *first_stage_layers;
    if (stage == size - 1 && last_stage_layers) return *last_stage_layers;
    return middle_stage_layers(layers);
  }
  /// Global index of stage `stage`'s first layer (one chunk per stage when uneven).
  std::int64_t stage_first_layer(std::int64_t layers, std::int64_t stage) const {
    std::int64_t first = 0;
    for (std::int64_t s = 0; s < stage; ++s)
      first += stage_layers(layers, s);
    return first;
  }
  /// What is wrong with the uneven split of `layers` layers, or nullopt when it holds.
  std::optional<std::string> uneven_problem(std::int64_t layers) const;

 private:
  // The stages without a stated count share the rest evenly.
  std::int64_t middle_stage_layers(std::int64_t layers) const {
    const std::int64_t stated = first_stage_layers.value_or(0) + last_stage_layers.value_or(0);
    const std::int64_t others =
        size - (first_stage_layers ? 1 : 0) - (last_stage_layers ? 1 : 0);
    return others > 0 ? (layers - stated) / others : 0;
  }
};

/// Context parallelism (Megatron's CP): each sequence's tokens split over `size` GPUs, 2·size
/// chunks so that every rank holds an equal share of the causal mask; attention passes the keys
/// and values around the ring. The gradients are summed over data x context ranks.
struct ContextParallel {
  std::int64_t size = 1;
};

/// Expert parallelism (Megatron-Core's MoE parallel folding): each MoE layer's experts split
/// over `size` GPUs of a pipeline stage, consecutive in its tensor x context x data rank order;
/// `tensor` GPUs per expert (1: whole experts).
struct ExpertParallel {
  std::int64_t size = 1;
  std::int64_t tensor = 1;
};

struct DataParallel {
  std::int64_t size = 1;
  int zero = 0;  ///< ZeRO stage 0..3
  bool overlap_grad_reduce = true;
  /// Megatron's --overlap-param-gather (ZeRO 1 and 2): the parameters the previous step
  /// updated are all-gathered as the forward pass first needs them, not after the optimizer.
  bool overlap_param_gather = false;
};

struct ParallelPlan;
/// Why `plan` cannot run Transformer Engine's TP communication overlap (it needs 1D tensor
/// parallelism over 2 or more GPUs with sequence parallelism, as Megatron's
/// --tp-comm-overlap), or nothing when it can or does not ask for it.
std::optional<std::string> tp_comm_overlap_problem(const ParallelPlan& plan);

struct ParallelPlan {
  TensorParallel tensor;
  PipelineParallel pipeline;
  DataParallel data;
  Recompute recompute = Recompute::none;
  ContextParallel context{};
  ExpertParallel expert{};

  std::int64_t gpus() const { return tensor.size * context.size * pipeline.size * data.size; }
};

/// The GEMM precision of training (training.precision): bf16, or FP8 through Transformer
/// Engine with its scaling recipe (delayed: per-tensor scales from an amax history, Megatron's
/// default; tensorwise: current scaling, an amax pass over each tensor before its cast).
enum class Fp8Recipe : std::uint8_t { delayed, tensorwise };

constexpr std::string_view to_string(Fp8Recipe r) {
  return r == Fp8Recipe::delayed ? "delayed" : "tensorwise";
}

/// Inverse of to_string; nullopt for an unknown name.
constexpr std::optional<Fp8Recipe> fp8_recipe_from_string(std::string_view text) {
  for (Fp8Recipe r : {Fp8Recipe::delayed, Fp8Recipe::tensorwise}) {
    if (to_string(r) == text) return r;
  }
  return std::nullopt;
}

struct TrainingSpec {
  std::int64_t global_batch = 1;  ///< sequences per optimizer step (inference: per step)
  std::int64_t micro_batch = 1;   ///< sequences per micro batch
  Optimizer optimizer = Optimizer::adam;
  RunMode mode = RunMode::training;
  /// Gradient clipping by global norm (Megatron's --clip-grad, default 1.0); 0: none.
  double clip_grad = 1.0;
  /// FP8 GEMMs in the transformer layers' linears (Transformer Engine), with this recipe;
  /// nullopt: the model's dtype throughout.
  std::optional<Fp8Recipe> fp8{};

  bool inference() const { return mode == RunMode::inference; }

  /// Micro batches each data-parallel replica runs per step (gradient accumulation steps).
  std::int64_t micro_batches_per_replica(std::int64_t data_parallel) const {
    return global_batch / (micro_batch * data_parallel);
  }
};

}  // namespace trainsim
