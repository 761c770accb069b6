#pragma once
// Megatron's rank order: tensor-parallel rank varies fastest, then data-parallel, then
// pipeline stage (parallelism-reference §11.4), so a TP group sits inside one node.

#include <cstdint>
#include <vector>

#include "models/parallel_plan.hpp"

namespace trainsim {

struct RankCoordinates {
  std::int64_t tp = 0;
  std::int64_t dp = 0;
  std::int64_t pp = 0;
};

class RankLayout {
 public:
  explicit RankLayout(const ParallelPlan& plan)
      : tp_(plan.tensor.size), dp_(plan.data.size), pp_(plan.pipeline.size) {}

  std::int64_t world_size() const { return tp_ * dp_ * pp_; }
  std::int64_t tp_size() const { return tp_; }
  std::int64_t dp_size() const { return dp_; }
  std::int64_t pp_size() const { return pp_; }

  RankCoordinates coordinates(std::int64_t rank) const {
    return {rank % tp_, (rank / tp_) % dp_, rank / (tp_ * dp_)};
  }
  std::int64_t rank_of(RankCoordinates c) const { return c.tp + tp_ * (c.dp + dp_ * c.pp); }

  /// Ranks sharing `rank`'s DP and PP coordinates, in TP order.
  std::vector<std::int64_t> tp_group(std::int64_t rank) const;
  /// Ranks sharing `rank`'s TP and PP coordinates, in DP order.
  std::vector<std::int64_t> dp_group(std::int64_t rank) const;
  /// Ranks sharing `rank`'s TP and DP coordinates, in stage order.
  std::vector<std::int64_t> pp_group(std::int64_t rank) const;

 private:
  /// The ranks that differ from `rank` only in the coordinate `axis` (0 .. size-1).
  std::vector<std::int64_t> group_along(std::int64_t rank, std::int64_t RankCoordinates::*axis,
                                        std::int64_t size) const;

  std::int64_t tp_;
  std::int64_t dp_;
  std::int64_t pp_;
};

}  // namespace trainsim
