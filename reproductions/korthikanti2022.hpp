#pragma once
// Korthikanti et al. 2022 (arXiv 2205.05198): Tables 2, 4 and 5 for the 22B model, Table 2 for
// all four models, and Table 5's pipelined rows (a reproduction of their own).

#include <filesystem>

#include "reproductions/reproduction.hpp"

namespace trainsim::reproductions {

/// Runs every comparison; scenarios are read from `project_root`/scenarios/korthikanti2022.
ReproductionReport run_korthikanti2022(const std::filesystem::path& project_root);

/// Table 5's pipelined rows (175B, 530B, 1T, and 530B with 8-way data parallelism): about a
/// minute of replay, so a reproduction (and a ctest entry) of its own.
ReproductionReport run_korthikanti2022_pipelines(const std::filesystem::path& project_root);

}  // namespace trainsim::reproductions
