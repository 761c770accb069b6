#pragma once
// Bian et al. 2021 (arXiv 2105.14450): 3D tensor parallelism over 1D and 2D on 64 V100 of TACC
// Longhorn, by average step time = (forward + backward time) / batch, with claim maps over the
// setups the paper leaves unknown (reproductions/claims/).

#include <filesystem>

#include "reproductions/reproduction.hpp"

namespace trainsim::reproductions {

/// Runs the comparisons and the map that decides the 3D-over-1D row, and the other maps if
/// `options` asks; scenarios from
/// `project_root`/scenarios/bian2021-3d.
ReproductionReport run_bian2021_3d(const std::filesystem::path& project_root,
                                   const ReproductionOptions& options);

}  // namespace trainsim::reproductions
