#pragma once
// `trainsim training-time`: the shortest wall-clock time to train a model, searching the
// global batch, the GPU count and the parallel layout, with Kaplan's steps/batch trade-off
// charging the extra steps of batches away from the critical one (parallelism-reference §10;
// §10.2 is our reconstruction of Lamy-Poirier 2021's analysis, not the paper's own).
//
// The model of time: a run at batch B takes S = S_min·(1 + B_crit/B) steps (eq. 5.4); each
// step takes the best replayed iteration time at B over the layouts `search_layouts` finds on
// n GPUs; the run takes S × that time and costs S × time × n GPU-hours. Where S_min and
// B_crit come from (a target loss, a token count, or the caller's reference batch): the
// README of this folder.
//
// With failures (the request's `failures`, the profile's `reliability:` section), each point
// also gets its goodput (training_goodput.hpp): the checkpoint interval, the expected wall
// time of its work and a Monte Carlo's p50 and p90; the failure-aware front and best rank the
// points by p50 days against GPU-hours at the expected wall time. Without, the result is the
// failure-free one alone, unchanged.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/model_spec.hpp"
#include "models/scaling_laws.hpp"
#include "sim/analysis/layout_search.hpp"
#include "sim/analysis/training_goodput.hpp"
#include "sim/hardware_profile.hpp"

namespace trainsim::sim {

struct TrainingTimeRequest {
  /// N: the tokens a run at the critical batch processes, so E = N and E_min = N/2 there.
  std::optional<double> tokens;
  /// L in nats: B_crit(L), and (without `tokens`) S_min(N, L) from eq. 1.6.
  std::optional<double> target_loss;
  /// Sequences taken as the critical batch when no target loss is given (the scenario's).
  std::int64_t reference_batch = 0;
  std::int64_t max_gpus = 0;
  std::int64_t min_gpus = 1;
  /// The batch grid: c·2^k sequences for k = −span … span, c = B_crit in sequences rounded
  /// to the nearest 2^a or 3·2^a (halvings below one sequence left out).
  int batch_span = 3;
  /// The layout dimension; K = 1 (only the best layout of a point is used). Its threads run
  /// the points side by side, each point's search on one of them; its processes take whole
  /// points.
  SearchOptions search = [] {
    SearchOptions o;
    o.top = 1;
    return o;
  }();
  /// Failure-aware figures from the hardware profile's reliability section; none when unset.
  std::optional<FailureOptions> failures = {};
};

/// One (batch, GPU count) of the grid with its best layout.
struct TrainingPoint {
  std::int64_t batch = 0;  ///< sequences
  std::int64_t gpus = 0;
  ReplayedLayout layout;  ///< the fastest layout that fits
  double steps = 0.0;     ///< S_min·(1 + B_crit/B)
  double seconds = 0.0;   ///< steps × iteration time
  double gpu_hours = 0.0;
  std::optional<PointGoodput> goodput = {};  ///< with failures only
};

struct SkippedPoint {
  std::int64_t batch = 0;
  std::int64_t gpus = 0;
  std::string reason;  ///< the layout search's Infeasible message
  /// The best estimated layout's Program is too large to record on this machine
  /// (TooLargeToRecord): a layout exists, but no replay decided the point.
  bool too_large = false;
};

/// The points ranked with failures.
struct FailureRanking {
  FailureOptions options;
  std::size_t best = 0;            ///< index in points: shortest p50 (ties: fewer GPU-hours)
  std::vector<std::size_t> front;  ///< (p50, GPU-hours with failures), by increasing p50
};

struct TrainingTimeResult {
  double parameters = 0.0;               ///< Kaplan's N (non-embedding)
  double loss_nats = 0.0;                ///< the target, or the loss at the reference batch
  bool loss_from_reference = false;      ///< no target loss given
  scaling::Tokens critical_batch;        ///< B_crit
  double min_steps = 0.0;                ///< S_min
  scaling::Tokens min_tokens;            ///< E_min = S_min·B_crit
  std::vector<std::int64_t> batches;     ///< the grid, sequences
  std::vector<std::int64_t> gpu_counts;  ///< the grid, descending
  std::vector<TrainingPoint> points;     ///< feasible points, batch-major in grid order
  std::vector<SkippedPoint> skipped;
  std::size_t best = 0;             ///< index in points: shortest time (ties: fewer GPU-hours)
  std::vector<std::size_t> front;   ///< the Pareto front, indices by increasing time
  bool best_at_batch_edge = false;  ///< the best batch is the grid's first or last
  /// With failures: every point has its goodput, and this ranks them.
  std::optional<FailureRanking> failures = {};
};

/// Indices of the points not dominated in (seconds, gpu_hours) (another point at most as
/// long and as costly, and better in one), by increasing time; equal points keep the first.
std::vector<std::size_t> pareto_front(const std::vector<TrainingPoint>& points);

/// The same over (Monte Carlo p50, GPU-hours at the expected wall time); every point needs its
/// goodput.
std::vector<std::size_t> failure_pareto_front(const std::vector<TrainingPoint>& points);

/// Steps of a run at `batch` sequences of `seq_len` tokens: S_min·(1 + B_crit/B).
double steps_at(double min_steps, scaling::Tokens critical, std::int64_t batch,
                std::int64_t seq_len);

/// The search. Throws Infeasible naming the field: tokens ≤ 0; a target loss at or below the
/// model's floor (N_c/N)^α_N; max_gpus < 1 or below min_gpus; max_gpus that the grid's largest
/// batch cannot lay out; no point of the grid with a layout that fits; failures requested on a
/// profile without a reliability section.
TrainingTimeResult search_training_time(const ModelSpec& model, const hw::HardwareProfile& hardware,
                                        const TrainingTimeRequest& request);

}  // namespace trainsim::sim
