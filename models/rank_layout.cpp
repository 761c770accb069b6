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

std::vector<std::int64_t> RankLayout::grid_line(std::int64_t rank,
                                                std::int64_t GridCell::*axis) const {
  RankCoordinates c = coordinates(rank);
  GridCell cell = grid_->cell(c.tp);
  std::vector<std::int64_t> group;
  for (cell.*axis = 0; cell.*axis < grid_->side(); ++(cell.*axis)) {
    c.tp = grid_->index(cell);
    group.push_back(rank_of(c));
  }
  return group;
}

std::vector<std::int64_t> RankLayout::row_group(std::int64_t rank) const {
  return grid_line(rank, &GridCell::column);
}

std::vector<std::int64_t> RankLayout::column_group(std::int64_t rank) const {
  return grid_line(rank, &GridCell::row);
}

std::vector<std::int64_t> RankLayout::gradient_group(std::int64_t rank) const {
  if (!grid_) return dp_group(rank);
  RankCoordinates c = coordinates(rank);
  GridCell cell = grid_->cell(c.tp);
  std::vector<std::int64_t> group;
  for (c.dp = 0; c.dp < dp_; ++c.dp) {
    for (cell.depth = 0; cell.depth < grid_->depth(); ++cell.depth) {
      c.tp = grid_->index(cell);
      group.push_back(rank_of(c));
    }
  }
  return group;
}

}  // namespace trainsim
