#pragma once
// Goodput: the share of wall time a training job spends on work it keeps, when interruptions
// strike it, each costing a restart and the work since the last checkpoint.
//
// The model (a renewal process, Daly 2006's): unplanned interruptions arrive as a Poisson
// process at rate λ = GPUs × Σ per-GPU rate of the causes, at any time — while training,
// while a checkpoint is saved, while the job restarts. Work runs in segments of τ seconds,
// each followed by a checkpoint whose stall is δ; a segment counts once its checkpoint is
// complete (an asynchronous save counts at the end of its stall: the write behind it is taken
// as safe, which leaves out λ·write of the loss). An interruption throws away the segment in
// progress and costs the restart R = detect + restart + load, itself interrupted and started
// again by an interruption during it. With M = 1/λ, a segment of work a takes, in expectation,
//
//     E[a] = M·e^{R/M}·(e^{(a+δ)/M} − 1)
//
// (the expected time to an uninterrupted stretch of a + δ, with a full restart after each
// interruption), so W seconds of work in ⌊W/τ⌋ segments of τ and one of the rest take the sum.
// Planned stops (maintenance) arrive as a second Poisson process, in wall time, at λ_p; each
// is announced, so the job checkpoints and loses nothing, and pauses c_p = δ + restart + load;
// over the run they stretch it by 1 / (1 − λ_p·c_p) (Wald: E[T] = E[T_u] + c_p·λ_p·E[T]). The
// checkpoint a planned stop takes also restarts the segment clock, a gain of order λ_p·τ·λ·τ
// that this leaves out (below 0.1 % for the Llama 3 window).
//
// The interval: Young 1974's τ = √(2δM) and Daly 2006's higher-order form are the usual
// approximations; the interval that minimises E[τ]/τ exactly solves e^{(τ+δ)/M}·(1 − τ/M) = 1,
// τ* = M·(1 + W₀(−e^{−(1+δ/M)})) with Lambert's W₀ — exact for this model, so it is the one
// used; the other two are printed beside it.

#include <cstdint>
#include <string>
#include <vector>

namespace trainsim::sim {

/// What interrupts one job and what each interruption costs, in seconds.
struct FailureModel {
  double unplanned_per_s = 0.0;  ///< λ: the job's unplanned interruptions per second
  double planned_per_s = 0.0;    ///< λ_p
  double restart_s = 0.0;        ///< R: detect + restart + load, after an unplanned one
  double planned_stop_s = 0.0;   ///< c_p: checkpoint + restart + load, per planned stop
  double checkpoint_s = 0.0;     ///< δ: the stall of one checkpoint

  /// Throws std::invalid_argument naming the field for a negative or non-finite figure, or
  /// planned stops that would fill the whole run (λ_p·c_p ≥ 1).
  void check() const;
  /// M = 1/λ; infinity without unplanned interruptions.
  double mean_time_to_interruption() const;
};

/// Young 1974: √(2δM).
double young_interval(const FailureModel& model);
/// Daly 2006, eq. 37: √(2δM)·(1 + √(δ/2M)/3 + δ/(18M)) − δ for δ < 2M, else M.
double daly_interval(const FailureModel& model);
/// The τ that minimises the expected wall time per second of work under the model above
/// (Lambert W₀). Infinity without unplanned interruptions; throws std::invalid_argument when
/// δ = 0 and λ > 0 (checkpoints that cost nothing: as often as possible).
double optimal_interval(const FailureModel& model);

/// Expected wall seconds for `work_s` seconds of work with a checkpoint every `interval_s`
/// seconds of work. Throws std::invalid_argument for interval_s ≤ 0 or work_s < 0.
double expected_wall_time(double work_s, double interval_s, const FailureModel& model);

/// Where a long run's wall time goes with a checkpoint every `interval_s` of work, as shares
/// of it that add to 1. Per segment of work a = τ + δ, p = e^{−λa}: (1/p − 1) interruptions,
/// each throwing away (1/p − 1)·M − a of work in all and restarting for M·(e^{λR} − 1) (its
/// own interruptions included); planned stops take λ_p·c_p of the whole.
struct WallTimeShares {
  double work = 1.0;         ///< kept work: the effective share
  double checkpoints = 0.0;  ///< the stalls of the checkpoints that completed
  double lost_work = 0.0;    ///< work (and checkpoint stalls) an interruption threw away
  double restarts = 0.0;     ///< detecting, restarting, loading, after unplanned interruptions
  double planned = 0.0;      ///< planned stops
};
/// Throws as expected_wall_time.
WallTimeShares wall_time_shares(double interval_s, const FailureModel& model);

/// A seeded Monte Carlo of whole runs under the same model: wall seconds of each run, in the
/// order drawn, and their statistics. The generator is std::mt19937_64 with exponential
/// draws −log(1 − u), u from its top 53 bits, so the same seed gives the same runs anywhere
/// the standard library's log is correctly rounded.
struct MonteCarloRuns {
  std::vector<double> wall_s;
  double mean = 0.0;
  /// Nearest-rank quantiles of wall_s.
  double p10 = 0.0;
  double p50 = 0.0;
  double p90 = 0.0;
  double mean_unplanned = 0.0;  ///< interruptions per run
  double mean_planned = 0.0;
};

/// Throws std::invalid_argument for samples < 1, or as expected_wall_time.
MonteCarloRuns monte_carlo_runs(double work_s, double interval_s, const FailureModel& model,
                                std::int64_t samples, std::uint64_t seed);

}  // namespace trainsim::sim
