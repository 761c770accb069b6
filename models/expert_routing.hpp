#pragma once
// The tokens per expert a MoE layer's router is assumed to produce where it has no logits to
// route by (the meta backend), under MoeSpec::routing. The busiest experts are put on the
// first rank of each expert-parallel group: a recorded rank stands for its stage's others, and
// as every member waits for the busiest at the all-to-all, that rank sets the pace.

#include <cstdint>
#include <span>
#include <vector>

#include "models/moe_spec.hpp"

namespace trainsim {

/// Each expert's share of the rows routed by one rank of an expert-parallel group of
/// `members` whose ranks route `tokens` tokens each, in layer `layer`, micro batch
/// `micro_batch`: empty for balanced routing. Shares sum to 1, none above 1/k (a token
/// chooses an expert once), and the E/members experts of each rank are ordered so that rank 0
/// holds the busiest block, rank 1 the next. Deterministic: uniform's draws are seeded by the
/// layer and micro batch, zipf's ranking by the layer.
std::vector<double> expert_shares(const MoeSpec& spec, std::int64_t members, std::int64_t tokens,
                                  std::int64_t layer, std::int64_t micro_batch);

/// The busiest rank's rows over the mean rank's (1 when balanced): Σ of its block of shares
/// times `members`.
double busiest_rank_load(std::span<const double> shares, std::int64_t members);

/// busiest_rank_load averaged over the MoE layers among `layers` (micro batch 0).
double mean_busiest_rank_load(const MoeSpec& spec, std::int64_t layers, std::int64_t members,
                              std::int64_t tokens);

/// `rows` routed rows split by `shares` (largest remainders; ties to the lower expert), each
/// expert capped at `limit`; empty shares: the balanced split (the remainder to the first).
std::vector<std::int64_t> split_rows(std::int64_t rows, std::int64_t experts,
                                     std::span<const double> shares, std::int64_t limit);

}  // namespace trainsim
