#include "models/rank_layout.hpp"

#include <numeric>

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

std::vector<std::int64_t> RankLayout::cp_group(std::int64_t rank) const {
  return group_along(rank, &RankCoordinates::cp, cp_);
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

std::vector<std::int64_t> RankLayout::cube_group(std::int64_t rank, CommGroup group) const {
  RankCoordinates c = coordinates(rank);
  const CubeCell mine = cube_->cell(c.tp);
  const std::int64_t q = cube_->side();
  // (slow, fast) axes of the group; nullptr for a single varying axis.
  std::int64_t CubeCell::*slow = nullptr;
  std::int64_t CubeCell::*fast = nullptr;
  switch (group) {
    case CommGroup::input:
      fast = &CubeCell::j;
      break;
    case CommGroup::weight:
      fast = &CubeCell::i;
      break;
    case CommGroup::output:
      fast = &CubeCell::k;
      break;
    case CommGroup::input_weight:
      slow = &CubeCell::i;
      fast = &CubeCell::j;
      break;
    case CommGroup::output_weight:
      slow = &CubeCell::i;
      fast = &CubeCell::k;
      break;
    default:
      return tp_group(rank);
  }
  std::vector<std::int64_t> members;
  for (std::int64_t s = 0; s < (slow ? q : 1); ++s) {
    for (std::int64_t f = 0; f < q; ++f) {
      CubeCell cell = mine;
      if (slow) cell.*slow = s;
      cell.*fast = f;
      c.tp = cube_->index(cell);
      members.push_back(rank_of(c));
    }
  }
  return members;
}

bool RankLayout::in_first_block(std::int64_t rank) const {
  const RankCoordinates c = coordinates(rank);
  if (c.dp != 0 || c.pp != 0) return false;
  if (cube_) return true;
  return grid_ && cell(rank).depth == 0;
}

std::vector<std::int64_t> RankLayout::expert_group(std::int64_t rank) const {
  const std::int64_t first = stage_index(rank) / ep_ * ep_;
  std::vector<std::int64_t> group;
  for (std::int64_t i = first; i < first + ep_; ++i)
    group.push_back(at_stage_index(rank, i));
  return group;
}

std::vector<std::int64_t> RankLayout::expert_data_group(std::int64_t rank) const {
  std::vector<std::int64_t> group;
  for (std::int64_t i = stage_index(rank) % ep_; i < tp_ * cp_ * dp_; i += ep_)
    group.push_back(at_stage_index(rank, i));
  return group;
}

std::vector<std::int64_t> RankLayout::model_group(std::int64_t rank, bool sharded) const {
  std::vector<std::int64_t> group;
  if (sharded) {
    group.resize(static_cast<std::size_t>(world_size()));
    std::iota(group.begin(), group.end(), std::int64_t{0});
    return group;
  }
  // Made from its members' coordinates, not by testing every rank: a Program has a group per
  // DP and CP index, and testing 16 384 ranks for each of 2048 groups was ~3 % of a 16 384-GPU
  // point's link-traffic floors. TP varies fastest in a rank, PP slowest, so stage by stage
  // and TP within a stage is ascending order.
  const RankCoordinates mine = coordinates(rank);
  const std::int64_t depth = grid_ ? cell(rank).depth : 0;
  for (RankCoordinates c{0, mine.dp, 0, mine.cp}; c.pp < pp_; ++c.pp) {
    for (c.tp = 0; c.tp < tp_; ++c.tp) {
      if (!grid_ || grid_->cell(c.tp).depth == depth) group.push_back(rank_of(c));
    }
  }
  return group;
}

std::vector<std::int64_t> RankLayout::gradient_group(std::int64_t rank) const {
  if (!grid_ && cp_ == 1) return dp_group(rank);
  RankCoordinates c = coordinates(rank);
  if (!grid_) {
    std::vector<std::int64_t> group;
    for (c.dp = 0; c.dp < dp_; ++c.dp) {
      for (c.cp = 0; c.cp < cp_; ++c.cp)
        group.push_back(rank_of(c));
    }
    return group;
  }
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
