#include "reports/analyses/critical_batch_report.hpp"

#include <fmt/format.h>

namespace trainsim::reports {
namespace {

using scaling::Tokens;

std::string count(double n) {
  return fmt::format("{:.3g}", n);
}

std::string trade_off_line(const sim::TradeOffRow& r, bool with_model) {
  std::string line = fmt::format("  {:>9.4g} {:>12} {:>9.4g} {:>9.4g}", r.batch_over_critical,
                                 count(r.batch.count()), r.steps_factor, r.tokens_factor);
  if (with_model) line += fmt::format(" {:>12} {:>12}", count(*r.steps), count(r.tokens->count()));
  return line + "\n";
}

nlohmann::ordered_json row_json(const sim::TradeOffRow& r) {
  nlohmann::ordered_json j;
  j["batch_tokens"] = r.batch.count();
  j["batch_over_critical"] = r.batch_over_critical;
  j["steps_over_min"] = r.steps_factor;
  j["tokens_over_min"] = r.tokens_factor;
  if (r.steps) j["steps"] = *r.steps;
  if (r.tokens) j["tokens"] = r.tokens->count();
  return j;
}

}  // namespace

std::string critical_batch_text(const sim::CriticalBatchAnalysis& a,
                                const std::optional<ScenarioBatch>& scenario) {
  std::string out =
      "Kaplan et al. 2020: B_crit(L) = B*/L^(1/α_B), L(N, S_min) = (N_c/N)^α_N + "
      "(S_c/S_min)^α_S, S = S_min(1 + B_crit/B), E = E_min(1 + B/B_crit) (eqs. 1.4, 1.6, 5.4, "
      "5.5; parallelism-reference §10.1)\n";
  if (scenario) {
    out += fmt::format(
        "scenario {}: global batch {} × {} = {} tokens; {:.4g} parameters, {:.4g} without "
        "the embeddings (Kaplan's N)\n",
        scenario->name, scenario->global_batch, scenario->seq_len,
        scenario->global_batch * scenario->seq_len, static_cast<double>(scenario->total_parameters),
        a.model->run.parameters);
  }
  out += fmt::format("loss {:.4g} nats{}: critical batch B_crit = {} tokens\n", a.loss_nats,
                     scenario && scenario->loss_from_batch
                         ? " (where the scenario's batch is critical; --target-loss to choose)"
                         : "",
                     count(a.critical_batch.count()));
  if (a.model) {
    const sim::ModelRun& m = *a.model;
    out += fmt::format(
        "model of N = {} parameters: floor (N_c/N)^α_N = {:.4g} nats\n"
        "  S_min = {} steps, E_min = S_min·B_crit = {} tokens, C_min ≈ 6·N·E_min = {} FLOP\n"
        "  D(N, L) = {} tokens (eq. 1.5: the data an early-stopped run needs)\n"
        "B_crit along the minimal run (loss after a fraction of S_min steps, eq. 1.6):\n"
        "  {:>8} {:>12} {:>9} {:>12}\n",
        count(m.run.parameters), m.loss_floor_nats, count(m.run.min_steps),
        count(m.run.min_tokens.count()), count(m.min_compute.count()),
        count(m.data_for_loss.count()), "S/S_min", "steps", "loss", "B_crit");
    for (const sim::RunPoint& p : m.along_run) {
      out += fmt::format("  {:>8.3g} {:>12} {:>9.4g} {:>12}\n", p.fraction_of_min_steps,
                         count(p.steps), p.loss_nats, count(p.critical_batch.count()));
    }
  }
  const bool with_model = a.model.has_value();
  out += fmt::format(
      "trade-off of a fixed batch B (tokens) against the minima:\n  {:>9} {:>12} "
      "{:>9} {:>9}{}\n",
      "B/B_crit", "B", "S/S_min", "E/E_min",
      with_model ? fmt::format(" {:>12} {:>12}", "S (steps)", "E (tokens)") : "");
  for (const sim::TradeOffRow& r : a.trade_off)
    out += trade_off_line(r, with_model);
  if (a.at_batch) {
    const sim::TradeOffRow& r = *a.at_batch;
    out += fmt::format(
        "{} {} tokens: B/B_crit = {:.4g}, {:.4g}× the minimum steps and {:.4g}× "
        "the minimum tokens{}\n",
        scenario ? "the scenario's batch," : "batch", count(r.batch.count()), r.batch_over_critical,
        r.steps_factor, r.tokens_factor,
        with_model ? fmt::format(" (S = {} steps, E = {} tokens)", count(*r.steps),
                                 count(r.tokens->count()))
                   : "");
  }
  return out;
}

nlohmann::ordered_json critical_batch_json(const sim::CriticalBatchAnalysis& a,
                                           const std::optional<ScenarioBatch>& scenario) {
  nlohmann::ordered_json j;
  j["loss_nats"] = a.loss_nats;
  j["critical_batch_tokens"] = a.critical_batch.count();
  if (a.model) {
    const sim::ModelRun& m = *a.model;
    nlohmann::ordered_json model;
    model["parameters"] = m.run.parameters;
    model["loss_floor_nats"] = m.loss_floor_nats;
    model["min_steps"] = m.run.min_steps;
    model["min_tokens"] = m.run.min_tokens.count();
    model["min_compute_flop"] = m.min_compute.count();
    model["data_for_loss_tokens"] = m.data_for_loss.count();
    nlohmann::ordered_json along = nlohmann::ordered_json::array();
    for (const sim::RunPoint& p : m.along_run) {
      along.push_back({{"fraction_of_min_steps", p.fraction_of_min_steps},
                       {"steps", p.steps},
                       {"loss_nats", p.loss_nats},
                       {"critical_batch_tokens", p.critical_batch.count()}});
    }
    model["along_run"] = along;
    j["model"] = model;
  }
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const sim::TradeOffRow& r : a.trade_off)
    rows.push_back(row_json(r));
  j["trade_off"] = rows;
  if (a.at_batch) j["batch"] = row_json(*a.at_batch);
  if (scenario) {
    j["scenario"] = {{"name", scenario->name},
                     {"total_parameters", scenario->total_parameters},
                     {"global_batch", scenario->global_batch},
                     {"seq_len", scenario->seq_len},
                     {"loss_from_batch", scenario->loss_from_batch}};
  }
  namespace k = scaling::kaplan;
  j["constants"] = {{"B_star_tokens", k::kCriticalBatchScaleTokens},
                    {"alpha_B", k::kAlphaB},
                    {"N_c", k::kParameterScale},
                    {"alpha_N", k::kAlphaN},
                    {"S_c", k::kStepScale},
                    {"alpha_S", k::kAlphaS},
                    {"D_c_tokens", k::kDataScaleTokens},
                    {"alpha_D", k::kAlphaD}};
  return j;
}

documents::ReportTable critical_batch_trade_off_table(const sim::CriticalBatchAnalysis& a) {
  documents::ReportTable table{"trade-off", {"B/B_crit", "B (tokens)", "S/S_min", "E/E_min"}, {}};
  if (a.model) {
    table.columns.push_back("S (steps)");
    table.columns.push_back("E (tokens)");
  }
  for (const sim::TradeOffRow& r : a.trade_off) {
    std::vector<std::string> cells{fmt::format("{:.4g}", r.batch_over_critical),
                                   count(r.batch.count()), fmt::format("{:.4g}", r.steps_factor),
                                   fmt::format("{:.4g}", r.tokens_factor)};
    if (a.model) {
      cells.push_back(count(*r.steps));
      cells.push_back(count(r.tokens->count()));
    }
    table.add_row(std::move(cells));
  }
  return table;
}

}  // namespace trainsim::reports
