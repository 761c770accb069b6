#pragma once
// The readable table and the JSON of a tensor-scheme comparison (`trainsim compare`).

#include <nlohmann/json.hpp>

#include <span>
#include <string>

#include "models/scenario.hpp"
#include "reports/analyses/scheme_comparison.hpp"
#include "sim/hardware_profile.hpp"

namespace trainsim::reports {

/// One line per scheme: scheme, layout, training step time, inference time, max batch,
/// tokens/s and the three ratios to the first scheme; a scheme that cannot run shows why;
/// then the notes (what each variant changed of the scenario's plan).
std::string format_scheme_table(const Scenario& scenario, const hw::HardwareProfile& hardware,
                                std::span<const SchemeResult> rows);

/// Keys, in this order: scenario, hardware, gpus, global_batch, micro_batch, tensor_size,
/// data_parallel, baseline (the first scheme's name), schemes: an array with per scheme
/// scheme, layout, plan, feasible, problem (string or null), notes (array), step_time_s,
/// inference_time_s, tokens_per_s, inference_tokens_per_s, peak_bytes, fits,
/// inference_peak_bytes, max_micro_batch, max_global_batch, step_speedup, inference_speedup,
/// max_batch_ratio (numbers, or null where absent: infeasible scheme, no baseline, or the
/// max-batch search not run). Same input, same bytes.
nlohmann::ordered_json schemes_to_json(const Scenario& scenario,
                                       const hw::HardwareProfile& hardware,
                                       std::span<const SchemeResult> rows);

}  // namespace trainsim::reports
