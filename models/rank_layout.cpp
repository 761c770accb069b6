#include "models/rank_layout.hpp"

namespace trainsim {

std::vector<std::int64_t> RankLayout::group_along(std::int64_t rank,
                                                  std::int64_t RankCoordinates::*axis,
                                                  std::int64_t size) const {
  RankCoordinates c = coordinates(rank);
  std::vector<std::int64_t> group;
  group.reserve(static_cast<std::size_t>(size));
  for (c.*axis = 0; c.*axis < size; ++(c.*axis))
    group.push_back(rank_of(c));
  return group;
}

std::vector<std::int64_t> RankLayout::tp_group(std::int64_t rank) const {
  return group_along(rank, &RankCoordinates::tp, tp_);
}

std::vector<std::int64_t> RankLayout::dp_group(std::int64_t rank) const {
  return group_along(rank, &RankCoordinates::dp, dp_);
}

std::vector<std::int64_t> RankLayout::pp_group(std::int64_t rank) const {
  return group_along(rank, &RankCoordinates::pp, pp_);
}

}  // namespace trainsim
