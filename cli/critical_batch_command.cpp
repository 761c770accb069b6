#include "cli/critical_batch_command.hpp"

#include "cli/positive_number.hpp"
#include "cli/report_arguments.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "documents/atomic_file.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/errors.hpp"
#include "models/scaling_laws.hpp"
#include "reports/analyses/critical_batch_report.hpp"
#include "sim/analysis/critical_batch.hpp"

namespace trainsim::cli {
namespace {

struct CriticalBatchOptions {
  std::string params;
  std::string loss;
  std::filesystem::path scenario;
  std::string batch;
  std::string target_loss;
  std::filesystem::path json;
};

std::optional<double> parse_optional(const std::string& flag, const std::string& text,
                                     bool suffixes) {
  if (text.empty()) return std::nullopt;
  return parse_positive(flag, text, suffixes);
}

// Re-raises a loss the model cannot reach with the flag or setting it came from.
sim::CriticalBatchAnalysis analyze(const std::string& source, double loss,
                                   std::optional<double> parameters,
                                   std::optional<scaling::Tokens> batch) {
  try {
    return sim::analyze_critical_batch(loss, parameters, batch);
  } catch (const Infeasible& e) {
    throw Infeasible(fmt::format("{}: {}", source, e.what()));
  }
}

struct CriticalBatchOutcome {
  sim::CriticalBatchAnalysis analysis;
  std::optional<reports::ScenarioBatch> scenario;
};

CriticalBatchOutcome analyze_options(const CriticalBatchOptions& o) {
  const int modes = static_cast<int>(!o.params.empty()) + static_cast<int>(!o.loss.empty()) +
                    static_cast<int>(!o.scenario.empty());
  if (modes != 1) {
    throw CLI::ValidationError("critical-batch",
                               "give exactly one of --params N, --loss L or --scenario FILE");
  }
  std::optional<scaling::Tokens> batch;
  if (const auto b = parse_optional("--batch", o.batch, true)) batch = scaling::Tokens::of(*b);
  const std::optional<double> target = parse_optional("--target-loss", o.target_loss, false);
  const std::string target_source = fmt::format("--target-loss {}", o.target_loss);

  sim::CriticalBatchAnalysis a;
  std::optional<reports::ScenarioBatch> from_scenario;
  if (!o.loss.empty()) {
    a = analyze("--loss", parse_positive("--loss", o.loss, false), std::nullopt, batch);
  } else if (!o.params.empty()) {
    const double n = parse_positive("--params", o.params, true);
    if (!target) {
      // Kaplan's laws give the loss after any number of steps but no point to stop at.
      throw CLI::ValidationError(
          "--params",
          "needs --target-loss L, the loss in nats the run trains to (above the "
          "model's floor (N_c/N)^α_N; Kaplan's laws set no end point)");
    }
    a = analyze(target_source, *target, n, batch);
  } else {
    const Scenario s = inputs::load_scenario(o.scenario);
    reports::ScenarioBatch sb{s.name, s.model.parameters(), s.training.global_batch,
                              s.model.seq_len, !target.has_value()};
    const scaling::Tokens tokens =
        scaling::Tokens::of(static_cast<double>(sb.global_batch * sb.seq_len));
    const double n = scaling::non_embedding_parameters(s.model);
    const double loss = target ? *target : scaling::loss_at_critical_batch(tokens);
    a = analyze(target ? target_source
                       : fmt::format("scenario '{}': its batch of {:.3g} tokens is critical at "
                                     "{:.4g} nats (give --target-loss)",
                                     s.name, tokens.count(), loss),
                loss, n, tokens);
    from_scenario = sb;
  }
  return {a, from_scenario};
}

void run_critical_batch(const CriticalBatchOptions& o) {
  if (!o.json.empty()) documents::check_destination(o.json);
  const CriticalBatchOutcome r = analyze_options(o);
  fmt::print("{}", reports::critical_batch_text(r.analysis, r.scenario));
  if (!o.json.empty())
    documents::write_atomically(
        o.json, reports::critical_batch_json(r.analysis, r.scenario).dump(2) + "\n");
}

void define_options(CLI::App& cmd, CriticalBatchOptions& o) {
  CLI::Option* params = cmd.add_option(
      "--params", o.params,
      "Model size N (non-embedding parameters): 175e9, 175B, 1T; needs --target-loss");
  CLI::Option* loss = cmd.add_option("--loss", o.loss, "Loss in nats: B_crit at this loss");
  CLI::Option* scenario = cmd.add_option(
      "--scenario", o.scenario,
      "Scenario YAML: N from its model (embeddings left out), B = global batch × seq_len tokens");
  CLI::Option* batch =
      cmd.add_option("--batch", o.batch, "Batch in tokens (175e3, 3.15M) to compare with B_crit");
  CLI::Option* target = cmd.add_option(
      "--target-loss", o.target_loss,
      "Loss in nats the run trains to (with --scenario: default, the loss at which its batch is "
      "critical)");
  cmd.add_option("--json", o.json, "Write the result as JSON to this file");
  params->excludes(loss)->excludes(scenario);
  loss->excludes(scenario)->excludes(target);
  scenario->excludes(batch);
}

}  // namespace

void add_critical_batch_command(CLI::App& app) {
  auto o = std::make_shared<CriticalBatchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "critical-batch",
      "Kaplan's critical batch size for a loss or a model size, and the steps/compute trade-off");
  define_options(*cmd, *o);
  cmd->callback([o] { run_critical_batch(*o); });
}

documents::ReportContent critical_batch_report(const std::filesystem::path& root,
                                               const std::vector<std::string>& args) {
  CriticalBatchOptions options = parse_report_options(define_options, "critical-batch", args);
  if (!options.scenario.empty()) options.scenario = root / options.scenario;
  const CriticalBatchOutcome r = analyze_options(options);
  documents::ReportContent content;
  add_command_block(content, "critical-batch", args);
  content.add_block("output",
                    documents::fenced(reports::critical_batch_text(r.analysis, r.scenario)));
  content.add_table(reports::critical_batch_trade_off_table(r.analysis));
  return content;
}

}  // namespace trainsim::cli
