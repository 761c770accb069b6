#pragma once
// Stragglers in large training jobs (ByteDance's study, OSDI'25, arXiv 2505.05713; its code is
// ByteDance-Seed/StragglerAnalysis): qualitative conclusions, as issue 25 states them, checked
// against the replay with slow GPUs: one slow worker in a data-parallel group sets every worker's
// pace, and an unbalanced last pipeline stage is a straggler of its own. The paper's figures are
// not in
// ../shared (fidelity-data.md §7: not verified), so there is nothing numeric to compare.

#include <filesystem>

#include "reproductions/reproduction.hpp"

namespace trainsim::reproductions {

/// Replays scenarios/tests/straggler-dp4.yaml and straggler-pp4.yaml with and without their
/// stragglers (well under a second).
ReproductionReport run_stragglers2025(const std::filesystem::path& project_root);

}  // namespace trainsim::reproductions
