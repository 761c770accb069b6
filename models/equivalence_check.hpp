#pragma once
// Proof that a partitioned schedule computes what one device computes: runs the executor on
// the cpu backend with TP x PP x DP ranks as threads and the same model on one device (fp64, same
// initial weights and tokens, dropout off) and compares the loss, every rank's gradient shard
// and the parameters after the Adam step (parallelism-reference §13).

#include <cstdint>
#include <string>
#include <vector>

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
  double max_error = 0.0;  ///< over loss, gradients and values
  double tolerance = 1e-9;
  /// Gradient and value entries no rank compared (each must be held by some DP rank).
  std::int64_t uncompared = 0;
  bool passed = false;  ///< max_error < tolerance and uncompared == 0
};

/// Runs the check; dropout is off, vocabulary padded as the executor pads it for the plan's
/// TP size. With `training.mode` inference the partitioned ranks run forward passes only and
/// their loss is compared with the single device's training loss (`parameters` stays empty). Throws
/// Infeasible for plans the executor does not support.
EquivalenceReport check_against_single_device(const ModelSpec& model, const ParallelPlan& plan,
                                              const TrainingSpec& training, std::uint64_t seed);

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
