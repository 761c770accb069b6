#pragma once
// Narayanan et al. 2021 (arXiv 2104.04473), published-results.md §2 (setup only): the ten
// weak-scaling rows of their Table 1 and the PTD-P versus ZeRO-3 runs of their Table 2, as
// predictions: TFLOP/s per GPU, aggregate PFLOP/s and days for 300B tokens. §2 publishes no
// outcome, so there is nothing to compare and the report is its notes.

#include <filesystem>

#include "reproductions/reproduction.hpp"

namespace trainsim::reproductions {

/// Simulates every row from `project_root`/scenarios/megatron2021 (about a minute: the
/// pipelined rows replay millions of ops each).
ReproductionReport run_megatron2021(const std::filesystem::path& project_root);

}  // namespace trainsim::reproductions
