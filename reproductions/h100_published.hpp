#pragma once
// NVIDIA's published H100 training throughput (../shared/data, issue 19 item 6): Megatron-Core
// r0.8.0's four BF16 GPT weak-scaling rows (h100_published.csv) and Megatron-Bridge 25.11's
// dense Llama 3 FP8 rows on DGX-H100 (megatron_bridge_published.csv), each the scenario of
// scenarios/h100-published/ or scenarios/llama3/ on the one dgx-h100 profile, no knob per row.

#include <filesystem>

#include "reproductions/reproduction.hpp"

namespace trainsim::reproductions {

/// Every row as a set row of "h100-published H100 rows" (the B200 row: "h100-published B200
/// rows"; published model TFLOP/s per GPU against ours) and the `rows` table: layout, both figures,
/// the signed error and where our iteration goes (compute, exposed TP / DP / PP communication,
/// bubble). A row that cannot be simulated predicts NaN, which fails the set.
ReproductionReport run_h100_published(const std::filesystem::path& project_root);

}  // namespace trainsim::reproductions
