#include "models/scaling_laws.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "models/errors.hpp"

namespace trainsim::scaling {
namespace {

void require_positive(const char* what, double value) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    throw std::invalid_argument(
        fmt::format("{} must be a positive finite number; got {:g}", what, value));
  }
}

// The laws are inverted only above the floor: at or below it no number of steps or tokens
// reaches the loss.
void require_above_floor(double parameters, double loss_nats) {
  require_positive("loss", loss_nats);
  const double floor = loss_floor(parameters);
  if (loss_nats <= floor) {
    throw Infeasible(fmt::format(
        "loss {:.4g} nats is below what a model of {:.4g} parameters reaches, (N_c/N)^α_N = "
        "{:.4g} nats; a reachable loss is above that",
        loss_nats, parameters, floor));
  }
}

}  // namespace

double non_embedding_parameters(const ModelSpec& model) {
  return static_cast<double>(model.parameters() - model.embedding_parameters());
}

Tokens critical_batch(double loss_nats) {
  require_positive("loss", loss_nats);
  return Tokens::of(kaplan::kCriticalBatchScaleTokens / std::pow(loss_nats, 1.0 / kaplan::kAlphaB));
}

double loss_at_critical_batch(Tokens batch) {
  require_positive("batch (tokens)", batch.count());
  return std::pow(kaplan::kCriticalBatchScaleTokens / batch.count(), kaplan::kAlphaB);
}

double loss_floor(double parameters) {
  require_positive("parameters", parameters);
  return std::pow(kaplan::kParameterScale / parameters, kaplan::kAlphaN);
}

double loss_after_steps(double parameters, double min_steps) {
  require_positive("S_min (steps)", min_steps);
  return loss_floor(parameters) + std::pow(kaplan::kStepScale / min_steps, kaplan::kAlphaS);
}

double min_steps_to_loss(double parameters, double loss_nats) {
  require_above_floor(parameters, loss_nats);
  return kaplan::kStepScale / std::pow(loss_nats - loss_floor(parameters), 1.0 / kaplan::kAlphaS);
}

double loss_after_tokens(double parameters, Tokens data) {
  require_positive("parameters", parameters);
  require_positive("data (tokens)", data.count());
  const double model_term =
      std::pow(kaplan::kParameterScale / parameters, kaplan::kAlphaN / kaplan::kAlphaD);
  return std::pow(model_term + kaplan::kDataScaleTokens / data.count(), kaplan::kAlphaD);
}

Tokens data_for_loss(double parameters, double loss_nats) {
  require_above_floor(parameters, loss_nats);
  const double model_term =
      std::pow(kaplan::kParameterScale / parameters, kaplan::kAlphaN / kaplan::kAlphaD);
  return Tokens::of(kaplan::kDataScaleTokens /
                    (std::pow(loss_nats, 1.0 / kaplan::kAlphaD) - model_term));
}

double steps_factor(Tokens batch, Tokens critical) {
  require_positive("batch (tokens)", batch.count());
  require_positive("critical batch (tokens)", critical.count());
  return 1.0 + critical / batch;
}

double tokens_factor(Tokens batch, Tokens critical) {
  require_positive("batch (tokens)", batch.count());
  require_positive("critical batch (tokens)", critical.count());
  return 1.0 + batch / critical;
}

double MinimalRun::steps_at(Tokens batch) const {
  return min_steps * steps_factor(batch, critical_batch);
}

Tokens MinimalRun::tokens_at(Tokens batch) const {
  return min_tokens * tokens_factor(batch, critical_batch);
}

MinimalRun minimal_run(double parameters, double loss_nats) {
  MinimalRun run;
  run.parameters = parameters;
  run.loss_nats = loss_nats;
  run.min_steps = min_steps_to_loss(parameters, loss_nats);
  run.critical_batch = critical_batch(loss_nats);
  run.min_tokens = run.critical_batch * run.min_steps;
  return run;
}

}  // namespace trainsim::scaling
