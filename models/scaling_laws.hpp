#pragma once
// Kaplan et al. 2020's scaling laws (arXiv 2001.08361; parallelism-reference §10.1,
// published-results §7): the critical batch size as a function of the loss, the loss reached
// after S_min steps or D tokens by a model of N non-embedding parameters, their inverses, and
// the steps/compute trade-off of training at a batch other than the critical one. Losses are
// cross-entropies in nats; N counts non-embedding parameters, as Kaplan's fits do.

#include <compare>

#include "models/model_spec.hpp"

namespace trainsim::scaling {

/// A number of tokens (a batch, a data set, the tokens processed by a run). Laws give
/// fractional counts, so it holds a double.
class Tokens {
 public:
  constexpr Tokens() = default;
  static constexpr Tokens of(double count) { return Tokens(count); }
  constexpr double count() const { return count_; }
  constexpr auto operator<=>(const Tokens&) const = default;
  constexpr double operator/(Tokens o) const { return count_ / o.count_; }
  constexpr Tokens operator*(double k) const { return Tokens(count_ * k); }

 private:
  explicit constexpr Tokens(double count) : count_(count) {}
  double count_ = 0.0;
};

/// Kaplan's fitted constants, as parallelism-reference §10.1 transcribes them.
namespace kaplan {
inline constexpr double kCriticalBatchScaleTokens = 2e8;  ///< B*, eq. 1.4
inline constexpr double kAlphaB = 0.21;                   ///< α_B, eq. 1.4
inline constexpr double kParameterScale = 8.8e13;         ///< N_c, eqs. 1.5 and 1.6
inline constexpr double kAlphaN = 0.076;                  ///< α_N, eqs. 1.5 and 1.6
inline constexpr double kStepScale = 2.1e3;               ///< S_c, eq. 1.6
inline constexpr double kAlphaS = 0.76;                   ///< α_S, eq. 1.6
inline constexpr double kDataScaleTokens = 5.4e13;        ///< D_c, eq. 1.5
inline constexpr double kAlphaD = 0.095;                  ///< α_D, eq. 1.5
}  // namespace kaplan

/// Kaplan's N for a model: every parameter but the word and position embeddings (the final
/// LayerNorm's 2h are kept; they do not show at the printed precision).
double non_embedding_parameters(const ModelSpec& model);

/// B_crit(L) = B* / L^(1/α_B) (eq. 1.4), in tokens. Throws std::invalid_argument if L ≤ 0.
Tokens critical_batch(double loss_nats);
/// The loss at which `batch` is the critical batch: (B*/B)^α_B, the inverse of
/// `critical_batch`. Throws std::invalid_argument if the batch is not positive.
double loss_at_critical_batch(Tokens batch);

/// (N_c/N)^α_N: the loss a model of N parameters approaches with unlimited steps and data.
/// Throws std::invalid_argument if N ≤ 0.
double loss_floor(double parameters);

/// L(N, S_min) = (N_c/N)^α_N + (S_c/S_min)^α_S (eq. 1.6): the loss after S_min steps at a
/// batch well above the critical one. Throws std::invalid_argument unless N, S_min > 0.
double loss_after_steps(double parameters, double min_steps);
/// S_min(N, L) = S_c / (L − (N_c/N)^α_N)^(1/α_S), the inverse of `loss_after_steps`. Throws
/// Infeasible when L is at or below the model's floor (the message gives the floor).
double min_steps_to_loss(double parameters, double loss_nats);

/// L(N, D) = [(N_c/N)^(α_N/α_D) + D_c/D]^α_D (eq. 1.5): the loss of a model trained with
/// early stopping on D tokens. Throws std::invalid_argument unless N, D > 0.
double loss_after_tokens(double parameters, Tokens data);
/// D(N, L), the inverse of `loss_after_tokens`. Throws Infeasible when L is at or below the
/// model's floor.
Tokens data_for_loss(double parameters, double loss_nats);

/// S/S_min = 1 + B_crit/B (eq. 5.4): how many more steps than the minimum a run at `batch`
/// takes. Throws std::invalid_argument unless both batches are positive.
double steps_factor(Tokens batch, Tokens critical);
/// E/E_min = 1 + B/B_crit (eq. 5.5): how many more tokens (and so compute) than the minimum a
/// run at `batch` processes. Throws std::invalid_argument unless both batches are positive.
double tokens_factor(Tokens batch, Tokens critical);

/// The two ends of the trade-off for a model trained to a loss: S_min steps at an unlimited
/// batch, E_min = S_min · B_crit tokens at a vanishing one (B_crit ≈ E_min/S_min, [S13]).
struct MinimalRun {
  double parameters = 0.0;  ///< N
  double loss_nats = 0.0;   ///< the target L
  Tokens critical_batch;    ///< B_crit(L)
  double min_steps = 0.0;   ///< S_min(N, L)
  Tokens min_tokens;        ///< E_min = S_min · B_crit

  /// Steps of a run at a fixed `batch`: S_min (1 + B_crit/B).
  double steps_at(Tokens batch) const;
  /// Tokens processed by a run at a fixed `batch`: E_min (1 + B/B_crit).
  Tokens tokens_at(Tokens batch) const;
};

/// S_min, B_crit and E_min for N parameters trained to `loss_nats`; throws Infeasible when the
/// loss is at or below the model's floor.
MinimalRun minimal_run(double parameters, double loss_nats);

}  // namespace trainsim::scaling
