#pragma once
// The critical-batch analysis behind `trainsim critical-batch`: Kaplan's B_crit at a loss,
// and, for a model size, the minimal run to that loss, B_crit along it and the steps/compute
// trade-off of batches around B_crit (models/scaling_laws.hpp has the laws).

#include <optional>
#include <vector>

#include "models/scaling_laws.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

/// One batch of the trade-off: the steps and tokens a fixed batch costs against the minima.
struct TradeOffRow {
  scaling::Tokens batch;
  double batch_over_critical = 0.0;       ///< B / B_crit
  double steps_factor = 0.0;              ///< S/S_min = 1 + B_crit/B
  double tokens_factor = 0.0;             ///< E/E_min = 1 + B/B_crit
  std::optional<double> steps;            ///< S, when the model size is known
  std::optional<scaling::Tokens> tokens;  ///< E, when the model size is known
};

/// A point of the minimal run on the way to the target: after `steps` = fraction · S_min
/// steps (eq. 1.6) the loss is `loss_nats`, and the critical batch there `critical_batch`.
struct RunPoint {
  double fraction_of_min_steps = 0.0;
  double steps = 0.0;
  double loss_nats = 0.0;
  scaling::Tokens critical_batch;
};

/// What the model size adds: the minimal run and where its critical batch goes.
struct ModelRun {
  scaling::MinimalRun run;
  double loss_floor_nats = 0.0;   ///< (N_c/N)^α_N
  scaling::Tokens data_for_loss;  ///< D(N, L), eq. 1.5: tokens an early-stopped run needs
  Flops min_compute;              ///< C_min ≈ 6·N·E_min (Kaplan's C = 6NBS)
  std::vector<RunPoint> along_run;
};

struct CriticalBatchAnalysis {
  double loss_nats = 0.0;
  scaling::Tokens critical_batch;
  std::optional<ModelRun> model;        ///< with a model size
  std::vector<TradeOffRow> trade_off;   ///< B_crit/8, /4, /2, 1, 2, 4, 8 × B_crit
  std::optional<TradeOffRow> at_batch;  ///< the batch asked about
};

/// The fractions of S_min at which `along_run` reports the loss and the critical batch. None
/// earlier than 10 %: at 1 % of S_min eq. 1.6 gives losses above ln(vocabulary), the loss of a
/// uniform guess, far outside the range Kaplan fitted.
inline constexpr double kRunFractions[] = {0.1, 0.25, 0.5, 0.75, 1.0};
/// The batches of the trade-off table, as multiples of B_crit.
inline constexpr double kTradeOffMultiples[] = {0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0};

/// B_crit at `loss_nats`; with `parameters` (Kaplan's N, non-embedding) the minimal run to that
/// loss (throws Infeasible if the loss is at or below the model's floor); with `batch` that
/// batch's row of the trade-off.
CriticalBatchAnalysis analyze_critical_batch(double loss_nats, std::optional<double> parameters,
                                             std::optional<scaling::Tokens> batch);

}  // namespace trainsim::sim
