#include "models/rank_layout.hpp"

namespace trainsim {

std::vector<std::int64_t> RankLayout::tp_group(std::int64_t rank) const {
  RankCoordinates c = coordinates(rank);
  std::vector<std::int64_t> group;
  for (c.tp = 0; c.tp < tp_; ++c.tp)
    group.push_back(rank_of(c));
  return group;
}

std::vector<std::int64_t> RankLayout::dp_group(std::int64_t rank) const {
  RankCoordinates c = coordinates(rank);
  std::vector<std::int64_t> group;
  for (c.dp = 0; c.dp < dp_; ++c.dp)
    group.push_back(rank_of(c));
  return group;
}

std::vector<std::int64_t> RankLayout::pp_group(std::int64_t rank) const {
  RankCoordinates c = coordinates(rank);
  std::vector<std::int64_t> group;
  for (c.pp = 0; c.pp < pp_; ++c.pp)
    group.push_back(rank_of(c));
  return group;
}

}  // namespace trainsim
