#include "sim/analysis/critical_batch.hpp"

namespace trainsim::sim {
namespace {

TradeOffRow trade_off_row(scaling::Tokens batch, scaling::Tokens critical,
                          const std::optional<ModelRun>& model) {
  TradeOffRow row;
  row.batch = batch;
  row.batch_over_critical = batch / critical;
  row.steps_factor = scaling::steps_factor(batch, critical);
  row.tokens_factor = scaling::tokens_factor(batch, critical);
  if (model) {
    row.steps = model->run.steps_at(batch);
    row.tokens = model->run.tokens_at(batch);
  }
  return row;
}

ModelRun model_run(double parameters, double loss_nats) {
  ModelRun m;
  m.run = scaling::minimal_run(parameters, loss_nats);
  m.loss_floor_nats = scaling::loss_floor(parameters);
  m.data_for_loss = scaling::data_for_loss(parameters, loss_nats);
  // Kaplan's compute estimate: 6 FLOPs per parameter and token (forward + backward).
  m.min_compute = Flops::of(6.0 * parameters * m.run.min_tokens.count());
  for (const double fraction : kRunFractions) {
    RunPoint p;
    p.fraction_of_min_steps = fraction;
    p.steps = fraction * m.run.min_steps;
    // The last point is the target itself, not eq. 1.6 evaluated back (no rounding drift).
    p.loss_nats = fraction == 1.0 ? loss_nats : scaling::loss_after_steps(parameters, p.steps);
    p.critical_batch = scaling::critical_batch(p.loss_nats);
    m.along_run.push_back(p);
  }
  return m;
}

}  // namespace

CriticalBatchAnalysis analyze_critical_batch(double loss_nats, std::optional<double> parameters,
                                             std::optional<scaling::Tokens> batch) {
  CriticalBatchAnalysis a;
  a.loss_nats = loss_nats;
  a.critical_batch = scaling::critical_batch(loss_nats);
  if (parameters) a.model = model_run(*parameters, loss_nats);
  for (const double k : kTradeOffMultiples)
    a.trade_off.push_back(trade_off_row(a.critical_batch * k, a.critical_batch, a.model));
  if (batch) a.at_batch = trade_off_row(*batch, a.critical_batch, a.model);
  return a;
}

}  // namespace trainsim::sim
