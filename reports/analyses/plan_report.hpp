#pragma once
// Table, JSON and CSV of `trainsim plan` (sim/analysis/layout_search.hpp): the best layouts
// as replayed in full, with why they win (pipeline bubble, exposed communication, memory
// headroom), set against the scenario's own layout when the request is the scenario's.
//
// JSON keys, in order: scenario, hardware, gpus, global_batch, capacity_bytes, layouts (valid
// layouts enumerated), pruned_by_floor, pruned_by_estimate, kernel_layouts (tensor blocks whose
// kernels set floors), compute_layouts (those replayed alone for floors), traffic_layouts
// (reduced layouts whose link traffic set floors), bounded_out,
// reduced_layouts, estimated (survivors ranked by the estimate), best (array, fastest first),
// rejected (replayed, over capacity), reference (the scenario's layout replayed, or null). Each
// layout entry: rank, description, layout {tensor_kind, tensor_size, depth, sequence_parallel,
// pipeline_size, schedule, chunks, first_stage_layers, last_stage_layers (null: even stages),
// data_size, zero, recompute, micro_batch}, estimate_rank (null
// for the reference), estimated_iteration_s, iteration_s, estimate_error (estimated / replayed −
// 1), tokens_per_s, model_tflops_per_gpu, peak_bytes, headroom_bytes, fits, breakdown_s {compute,
// recompute, optimizer, exposed_comm, bubble, other} of pipeline stage 0; with --stragglers,
// each best entry's one_slow_gpu {factor, first_gpu_iteration_s, last_gpu_iteration_s, cost}.
//
// CSV: one row per survivor in estimated order: estimate_rank, the layout columns above,
// estimated_iteration_s, estimated_bubble_s, estimated_peak_bytes, and for the replayed ones
// iteration_s, peak_bytes, fits (empty otherwise).

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "documents/report_content.hpp"
#include "sim/analysis/layout_search.hpp"
#include "sim/analysis/straggler_robustness.hpp"

namespace trainsim::reports {

struct PlanReport {
  std::string scenario;
  std::string hardware;
  /// Its `reference`: the scenario's own layout replayed in full, when its GPUs and batch are
  /// those searched.
  sim::SearchResult search;
  /// `plan --stragglers F`: one slow GPU's cost, parallel to search.best.
  std::vector<sim::StragglerRobustness> robustness;
};

std::string plan_text(const PlanReport& report);
/// A layout's fields as the JSON above writes them (also `trainsim training-time`'s).
nlohmann::ordered_json layout_json(const sim::Layout& layout);
nlohmann::ordered_json plan_json(const PlanReport& report);
std::string plan_csv(const PlanReport& report);
/// `trainsim report plan`: block `result` (the text above, fenced) and table `best` (the
/// layouts replayed in full and the scenario's own, one row each; also best.csv).
documents::ReportContent plan_content(const PlanReport& report);

}  // namespace trainsim::reports
