#pragma once
// The machine-readable form of a summary (`trainsim simulate --json`).

#include <nlohmann/json.hpp>

#include "models/scenario.hpp"
#include "reports/summary.hpp"

namespace trainsim::reports {

/// Top-level keys: mode ("training" or "inference": then iteration_time_s is one step of
/// forward passes and model FLOPs count the forward only), iteration_time_s, tokens_per_s,
/// tflops_per_gpu, mfu, hfu, breakdown_s, memory {peak_bytes, fits, ...}, plus the scenario and
/// setup. Key order is fixed, so the same summary always serialises to the same bytes.
nlohmann::ordered_json to_json(const Scenario& scenario, const Summary& summary);

}  // namespace trainsim::reports
