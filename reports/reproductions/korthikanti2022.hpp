#pragma once
// Korthikanti et al. 2022 (arXiv 2205.05198): Tables 2, 4 and 5 for the 22B model, Table 2 for
// all four models, and the Megatron weak-scaling rows with PP = 1 as predictions.

#include <filesystem>

#include "reports/reproductions/reproduction.hpp"

namespace trainsim::reports {

/// Runs every comparison; scenarios are read from `project_root`/scenarios/korthikanti2022.
ReproductionReport run_korthikanti2022(const std::filesystem::path& project_root);

}  // namespace trainsim::reports
