#pragma once
// Tesseract, Wang et al. 2022 (arXiv 2105.14500): 2.5D over 1D and 2D tensor parallelism on
// nodes of 4 A100 (strong scaling: one model on one GPU count), with sweeps over hidden size
// and batch.

#include <filesystem>

#include "reports/reproductions/reproduction.hpp"

namespace trainsim::reports {

/// Runs the comparisons, and the sweeps if `options` asks; scenarios from
/// `project_root`/scenarios/tesseract2022.
ReproductionReport run_tesseract2022(const std::filesystem::path& project_root,
                                     const ReproductionOptions& options);

}  // namespace trainsim::reports
