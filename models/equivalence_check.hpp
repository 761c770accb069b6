#pragma once
// Proof that a partitioned schedule computes what one device computes: runs the executor on
// the cpu backend with TP x PP x DP ranks as threads and the same model on one device (fp64, same
// initial weights and tokens, dropout off) and compares the loss, every rank's gradient shard
// (after the optimizer step's unscaling and clipping) and the parameters after the Adam step
// (parallelism-reference §13), and the global gradient norm every rank computed.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "models/backend.hpp"
#include "models/cpu_backend.hpp"  // MicroBatchTokens
#include "models/model_spec.hpp"
#include "models/parallel_plan.hpp"

namespace trainsim {

/// Largest error of one parameter tensor over all ranks: max |partitioned − single| over the
/// ranks' shards, absolute and relative to max |single| over the whole tensor.
struct ParameterError {
  std::string name;
  double gradient = 0.0;  ///< main gradient after the DP reduction (this rank's shard; relative)
  double value = 0.0;     ///< parameter after the Adam step (relative)
  double gradient_abs = 0.0;
  double value_abs = 0.0;
};

struct EquivalenceReport {
  std::int64_t ranks = 0;         ///< TP x PP x DP threads
  double loss_single = 0.0;       ///< mean loss over the global batch on one device
  double loss_partitioned = 0.0;  ///< the same, summed over the partitioned ranks
  double loss_error = 0.0;        ///< relative
  std::vector<ParameterError> parameters;
  double max_gradient_error = 0.0;
  double max_value_error = 0.0;
  double max_gradient_abs_error = 0.0;
  double max_value_abs_error = 0.0;
  double max_error = 0.0;  ///< over loss, gradients, values and the gradient norm
  /// With clipping (training.clip_grad > 0): the global gradient norm before clipping on one
  /// device, the largest relative difference of a partitioned rank's from it, and whether it
  /// exceeded clip_grad (then the compared gradients are the clipped ones).
  std::optional<double> grad_norm_single;
  double grad_norm_error = 0.0;
  bool clipped = false;
  double tolerance = 1e-9;
  /// Gradient and value entries no rank compared (each must be held by some DP rank).
  std::int64_t uncompared = 0;
  bool passed = false;  ///< max_error < tolerance and uncompared == 0
};

/// One rank of a partitioned run: its groups (world ranks in group order, containing `rank`),
/// pipeline neighbours and micro batches.
struct RankBackendSetup {
  std::int64_t rank = 0;
  std::vector<std::int64_t> tp_group;
  std::vector<std::int64_t> dp_group;  ///< the gradient group (2.5D: depth x DP)
  /// The other groups: a grid's row and column, a cube's five, the pipeline's embedding group.
  std::vector<std::pair<CommGroup, std::vector<std::int64_t>>> groups;
  std::vector<MicroBatchTokens> batches;
  std::int64_t previous = -1;  ///< world rank of the previous pipeline stage, or -1
  std::int64_t next = -1;      ///< world rank of the next pipeline stage, or -1
};

/// A rank's backend in a partitioned run, with the host access the check needs.
class RankBackend {
 public:
  virtual ~RankBackend() = default;
  virtual Backend& backend() = 0;
  /// Writes host values into a tensor of this backend (converted to its dtype).
  virtual void load(const Tensor& t, std::span<const double> values) = 0;
  virtual std::vector<double> read(const Tensor& t) = 0;
};

/// Makes a rank's backend; called inside the rank's thread (a GPU backend binds its device
/// and joins its communicators there), and the backend is destroyed there too.
using RankBackendFactory = std::function<std::unique_ptr<RankBackend>(RankBackendSetup)>;

/// Runs the check; dropout is off, vocabulary padded as the executor pads it for the plan's
/// TP size. With `training.mode` inference the partitioned ranks run forward passes only and
/// their loss is compared with the single device's training loss (`parameters` stays empty). Throws
/// Infeasible for plans the executor does not support.
EquivalenceReport check_against_single_device(const ModelSpec& model, const ParallelPlan& plan,
                                              const TrainingSpec& training, std::uint64_t seed);

/// A partitioned run on another backend against the same ranks on the cpu backend (fp64).
struct BackendComparison {
  std::int64_t ranks = 0;
  std::int64_t rank = -1;  ///< the one rank compared (a process per rank), or -1: all of them
  double loss_cpu = 0.0;   ///< summed over the ranks that hold a loss (as EquivalenceReport)
  double loss_other = 0.0;
  double loss_error = 0.0;  ///< relative
  /// Per parameter, relative to max |cpu| over the whole tensor (gradient after the DP
  /// reduction, value after the Adam step), over every rank's shard.
  std::vector<ParameterError> parameters;
  double max_error = 0.0;  ///< over loss, gradients and values
};

/// Runs the partitioned plan on ranks from `make_rank` and on cpu ranks (same weights, tokens,
/// dropout off) and compares every rank's loss, gradients and updated parameters. With
/// `only_rank` (one process per rank, its peers in other processes), `make_rank` makes that
/// rank alone and only it is compared; the cpu ranks still all run here, in memory.
BackendComparison compare_with_cpu(const ModelSpec& model, const ParallelPlan& plan,
                                   const TrainingSpec& training, std::uint64_t seed,
                                   const RankBackendFactory& make_rank,
                                   std::optional<std::int64_t> only_rank = std::nullopt);

/// Central finite differences of the single-device loss against its analytic gradient.
struct GradientCheckReport {
  std::int64_t samples = 0;  ///< parameter entries checked
  /// |fd − analytic| / max(|fd|, |analytic|, 1e-4): the floor turns the test absolute for
  /// near-zero gradients, where fp64 rounding of the loss (~1e-16 / epsilon) dominates.
  double max_relative_error = 0.0;
  std::string worst;  ///< "parameter[index]" of the largest error
};

/// Checks `samples_per_tensor` random entries of every parameter with step `epsilon`.
GradientCheckReport check_gradients_finite_difference(const ModelSpec& model,
                                                      const TrainingSpec& training,
                                                      std::uint64_t seed,
                                                      std::int64_t samples_per_tensor,
                                                      double epsilon = 1e-5);

}  // namespace trainsim
