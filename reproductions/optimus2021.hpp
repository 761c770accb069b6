#pragma once
// Optimus, Xu et al. 2021 (arXiv 2104.05343): 2D over 1D tensor parallelism on 64 GPUs of TACC
// Frontera: training and inference speedups and the largest-batch ratio, each at a stated
// configuration, with claim maps over the setups the paper leaves unknown (reproductions/claims/).

#include <filesystem>

#include "reproductions/reproduction.hpp"

namespace trainsim::reproductions {

/// Runs the comparisons, and the claim maps if `options` asks; scenarios from
/// `project_root`/scenarios/optimus2021.
ReproductionReport run_optimus2021(const std::filesystem::path& project_root,
                                   const ReproductionOptions& options);

}  // namespace trainsim::reproductions
