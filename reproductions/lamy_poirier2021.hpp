#pragma once
// Lamy-Poirier 2021 (arXiv 2106.02679), published-results.md §6: layered gradient accumulation
// on a modular pipeline against 1F1B and interleaved 1F1B for a 1T GPT at Kaplan's critical
// batch. The paper body is not available to us, so its abstract's claims are checked as claims
// (each with a test that can fail), and our simulated bubbles are compared with the closed
// forms of parallelism-reference §7.7.

#include <filesystem>

#include "reproductions/reproduction.hpp"

namespace trainsim::reproductions {

/// Simulates the rows of `project_root`/scenarios/lamy-poirier2021 (two layouts, m = p and
/// m = 2p) at the profile's NIC bandwidth, finds the 5 % bandwidth thresholds of the rows the
/// claims compare, evaluates the claims per layout, and searches the shortest training time
/// with its claim map; with `options.sweeps`, also the geometric bandwidth sweep (tables and
/// plots).
ReproductionReport run_lamy_poirier2021(const std::filesystem::path& project_root,
                                        const ReproductionOptions& options);

}  // namespace trainsim::reproductions
