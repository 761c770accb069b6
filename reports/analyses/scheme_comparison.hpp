#pragma once
// The same model, training batch and GPUs under several tensor-parallel schemes (1D, 2D,
// 2.5D, 3D): for each, the training step time, the
// inference time of the same batch (forward passes only), the largest training batch that
// fits, and ratios to the first scheme listed. `trainsim compare` prints this; the
// reproductions of Optimus, Tesseract and the 3D paper call it.
//
// How a variant is made from the scenario's plan: the tensor block keeps its size (so DP and
// PP keep theirs); the kind changes; 2.5D takes the given depth, else the scenario's own when
// it is 2.5D, else the default rule (default_depth); sequence parallelism, which the grid
// kinds reject, is turned off for them (said in the row's note); a grid order the kind does
// not have falls back to the kind's default_grid_order (said in the note).
// The inference run of a variant uses no recomputation and ZeRO 0 (inference has neither); a
// plan that trains but cannot run inference yet (a pipeline) keeps its training figures and a
// note, its inference columns empty.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/parallel_plan.hpp"
#include "models/scenario.hpp"
#include "sim/hardware_profile.hpp"
#include "sim/max_batch.hpp"
#include "sim/progress.hpp"
#include "units/units.hpp"

namespace trainsim::reports {

/// One scheme to compare.
struct TensorVariant {
  TensorKind kind = TensorKind::one_d;
  std::optional<std::int64_t> depth;  ///< 2.5D stacked grids; nullopt: default_depth()
};

/// Parses "1d,2d,2.5d" (names as in scenario files, comma-separated, no repeats). Throws
/// std::invalid_argument naming the unknown or repeated entry and the valid names.
/// `depth` applies to every 2.5D entry.
std::vector<TensorVariant> parse_tensor_variants(std::string_view list,
                                                 std::optional<std::int64_t> depth = {});

/// The 2.5D depth used when none is given for a block of `size` GPUs: among d >= 2 with
/// size / d a square q² (q >= 2), the one whose grid is closest to a cube (smallest
/// max(q, d) / min(q, d); ties to the larger q), as Tesseract's d = q is its balanced point:
/// 64 → q=4 d=4, 32 → q=4 d=2, 16 → q=2 d=4, 8 → q=2 d=2. nullopt if there is none (4, 9).
std::optional<std::int64_t> default_depth(std::int64_t size);

struct CompareOptions {
  bool max_batch = true;  ///< run the max-batch search (a build and replay per probe)
  /// Told ("compare", schemes done, schemes) before each scheme and at the end; may be empty.
  sim::Progress progress = {};
};

/// What one scheme gives. Times and batches are absent when the scheme cannot run
/// (`problem` says why); the ratios are absent also when the first scheme cannot run.
struct SchemeResult {
  TensorVariant variant;
  std::string name;                    ///< "2.5d"
  std::string layout;                  ///< "t=64", "q=8", "q=4 d=4", "q=4 cube"
  ParallelPlan plan;                   ///< the training plan run (or tried)
  std::optional<std::string> problem;  ///< why the scheme cannot run this model and batch
  std::vector<std::string> notes;      ///< what was changed from the scenario's plan
  std::optional<Time> step_time;       ///< one training iteration of the global batch
  /// Forward and backward passes of the training step, without the optimizer step
  /// (forward_backward_time in reports/program_measures.hpp).
  std::optional<Time> forward_backward_time;
  /// Forward passes of the same global batch; absent, with a note saying why, when the
  /// executor cannot run the plan's inference (pipelines, for now).
  std::optional<Time> inference_time;
  double tokens_per_s = 0.0;  ///< training
  double inference_tokens_per_s = 0.0;
  Bytes peak_memory;  ///< training, largest over GPUs
  bool fits = false;  ///< training peak <= GPU memory
  Bytes inference_peak_memory;
  /// Training max-batch search (CompareOptions::max_batch); micro_batch 0: not even the
  /// smallest batch fits.
  std::optional<sim::MaxBatchResult> max_batch;
  std::optional<double> step_speedup;       ///< first step time / this step time
  std::optional<double> inference_speedup;  ///< first inference time / this one
  std::optional<double> max_batch_ratio;    ///< this max global batch / the first's
};

/// The row of `variant` before anything runs: its name, the scenario's plan with the variant's
/// tensor scheme (the rules above), layout, notes, and `problem` when the scheme cannot lay
/// out the model. compare_tensor_schemes and `trainsim isoefficiency` build plans with it.
SchemeResult variant_plan(const Scenario& scenario, const TensorVariant& variant);

/// Runs every variant on `scenario`'s model, batch and GPU count (in training mode for the
/// step time and max batch, in inference mode for the inference time) and fills the ratios to
/// the first. Deterministic. A variant that the executor rejects (Infeasible, or a grid
/// problem) becomes a row with `problem` set; other errors propagate.
std::vector<SchemeResult> compare_tensor_schemes(const Scenario& scenario,
                                                 const hw::HardwareProfile& hardware,
                                                 std::span<const TensorVariant> variants,
                                                 const CompareOptions& options = {});

}  // namespace trainsim::reports
