#pragma once
// How the model is split over GPUs: tensor, pipeline and data parallelism and recomputation.
// Validated against the model and training spec by inputs/scenario_loader; this struct holds
// values only.

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "models/model_spec.hpp"

namespace trainsim {

/// Tensor-parallel scheme. Only 1D (Megatron) exists so far; 2D/2.5D/3D come later.
enum class TensorKind : std::uint8_t { one_d };

enum class PipelineSchedule : std::uint8_t {
  gpipe,
  one_f_one_b,
  interleaved,
  breadth_first,
  layered
};

enum class Optimizer : std::uint8_t { adam };

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
  std::int64_t size = 1;
  bool sequence_parallel = false;
};

struct PipelineParallel {
  std::int64_t size = 1;
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  std::int64_t chunks = 1;  ///< model chunks per stage (interleaving factor v)
};

struct DataParallel {
  std::int64_t size = 1;
  int zero = 0;  ///< ZeRO stage 0..3
  bool overlap_grad_reduce = true;
};

struct ParallelPlan {
  TensorParallel tensor;
  PipelineParallel pipeline;
  DataParallel data;
  Recompute recompute = Recompute::none;

  std::int64_t gpus() const { return tensor.size * pipeline.size * data.size; }
};

struct TrainingSpec {
  std::int64_t global_batch = 1;  ///< sequences per optimizer step
  std::int64_t micro_batch = 1;   ///< sequences per micro batch
  Optimizer optimizer = Optimizer::adam;

  /// Micro batches each data-parallel replica runs per step (gradient accumulation steps).
  std::int64_t micro_batches_per_replica(std::int64_t data_parallel) const {
    return global_batch / (micro_batch * data_parallel);
  }
};

}  // namespace trainsim
