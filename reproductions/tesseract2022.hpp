#pragma once
// Tesseract, Wang et al. 2022 (arXiv 2105.14500): 2.5D over 1D and 2D tensor parallelism on
// nodes of 4 A100, strong and weak scaling, with claim maps over the setups the paper leaves
// unknown (reproductions/claims/).

#include <filesystem>

#include "reproductions/reproduction.hpp"

namespace trainsim::reproductions {

/// Runs the comparisons and the map that decides the weak-scaling row, and the other maps if
/// `options` asks; scenarios from
/// `project_root`/scenarios/tesseract2022.
ReproductionReport run_tesseract2022(const std::filesystem::path& project_root,
                                     const ReproductionOptions& options);

}  // namespace trainsim::reproductions
