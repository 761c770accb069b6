#pragma once
// Text and JSON of `trainsim critical-batch` (sim/analysis/critical_batch.hpp).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "documents/report_table.hpp"
#include "sim/analysis/critical_batch.hpp"

namespace trainsim::reports {

/// Where the model size and batch came from, when a scenario gave them.
struct ScenarioBatch {
  std::string name;
  std::int64_t total_parameters = 0;  ///< with embeddings (Kaplan's N leaves them out)
  std::int64_t global_batch = 0;      ///< sequences per step
  std::int64_t seq_len = 0;           ///< tokens per sequence
  bool loss_from_batch = false;       ///< the loss is the one at which this batch is critical
};

/// The analysis as the command prints it: B_crit, the minimal run with B_crit along it, the
/// trade-off table and the batch asked about.
std::string critical_batch_text(const sim::CriticalBatchAnalysis& a,
                                const std::optional<ScenarioBatch>& scenario);

/// The same as JSON: `loss_nats`, `critical_batch_tokens`, `model` (parameters,
/// loss_floor_nats, min_steps, min_tokens, min_compute_flop, data_for_loss_tokens,
/// along_run), `trade_off`, `batch`, `scenario`, and Kaplan's constants.
nlohmann::ordered_json critical_batch_json(const sim::CriticalBatchAnalysis& a,
                                           const std::optional<ScenarioBatch>& scenario);

/// The trade-off of a fixed batch as a report table `trade-off` (B/B_crit, B, S/S_min, E/E_min,
/// and S, E when the model size is known).
documents::ReportTable critical_batch_trade_off_table(const sim::CriticalBatchAnalysis& a);

}  // namespace trainsim::reports
