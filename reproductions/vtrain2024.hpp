#pragma once
// vTrain's single-node A100 measurements (Bang et al., MICRO 2024, arXiv 2312.12391): 1440
// Megatron-DeepSpeed iteration times of small GPTs on 2, 4 or 8 A100s, vendored in
// data/vtrain2024/, each replayed as `trainsim fit-runs` builds it on the nominal
// selene-a100-80gb profile, split into the rows a fit may use and the held-out rows.

#include <filesystem>

#include "reproductions/reproduction.hpp"

namespace trainsim::reproductions {

/// The vendored file, relative to the project root.
inline constexpr const char* kVtrainDataFile = "data/vtrain2024/vtrain_a100_single_node.csv";

/// Fraction held out by inputs::run_held_out: every 5th row (0-based 4, 9, 14, ...), as
/// `trainsim fit-runs --holdout 0.2` holds them out.
inline constexpr double kVtrainHoldout = 0.2;

/// Every row as a set row (sets "vtrain2024 fitting rows" and "vtrain2024 held-out rows"),
/// digests by hidden size x TP and by micro batch (`tables`), and every row with its split
/// (`csv_tables`: `rows`). A row the executor cannot build predicts NaN, which fails its set.
ReproductionReport run_vtrain2024(const std::filesystem::path& project_root);

}  // namespace trainsim::reproductions
