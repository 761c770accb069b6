#pragma once
// Guards applied before a Program is recorded: no buffer beyond the int64 byte counters'
// range, and no Program too large to hold in memory (an Infeasible error with the numbers,
// which sweeps skip, instead of running out of memory).

#include <cstdint>
#include <optional>
#include <string>

#include "models/errors.hpp"
#include "models/model_spec.hpp"
#include "models/parallel_plan.hpp"

namespace trainsim {

/// An upper estimate of the ops one GPU's Program records: per layer and micro batch, a fixed
/// count for 1D and for a 3D cube, and for a 2D/2.5D grid one that grows with the grid side q.
double estimated_ops_per_gpu(const ModelSpec& model, const ParallelPlan& plan,
                             const TrainingSpec& training);

/// The same for one pipeline stage's GPU, which holds layers / pipeline.size of the layers (with
/// uneven stages, the heaviest stage's share).
double estimated_ops_per_stage(const ModelSpec& model, const ParallelPlan& plan,
                               const TrainingSpec& training);

/// Why a buffer would exceed 2^62 bytes or the Program 5e7 ops per GPU; nothing when neither.
std::optional<std::string> size_limit_problem(const ModelSpec& model, const ParallelPlan& plan,
                                              const TrainingSpec& training);

/// Throws Infeasible with size_limit_problem's message, if any.
void check_size_limits(const ModelSpec& model, const ParallelPlan& plan,
                       const TrainingSpec& training);

/// A Program too large to record on this machine (check_recorded_size): the request is
/// well-formed and would run on a machine with more memory, so a search that meets it for its
/// best layout says so rather than "no layout".
class TooLargeToRecord : public Infeasible {
 public:
  using Infeasible::Infeasible;
};

/// The most ops the Programs of one run may record: 1e8 (~16 GB at ~160 B per recorded op),
/// or what half of this machine's memory holds (physical, or its cgroup's limit), whichever is
/// lower.
double recorded_ops_limit();

/// Throws TooLargeToRecord when recording `recorded_gpus` Programs would exceed
/// recorded_ops_limit():
/// `exec --backend meta` and `simulate --full` record every GPU, which for a 3072-GPU run is
/// ~40 times what representative replay records.
void check_recorded_size(const ModelSpec& model, const ParallelPlan& plan,
                         const TrainingSpec& training, std::int64_t recorded_gpus);

}  // namespace trainsim
