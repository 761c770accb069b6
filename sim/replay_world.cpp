#include "sim/replay_world.hpp"

#include <algorithm>
#include <utility>

namespace trainsim::sim {
namespace {

bool same_groups(const std::vector<program::Group>& a, const std::vector<program::Group>& b) {
  return std::equal(
      a.begin(), a.end(), b.begin(), b.end(), [](const program::Group& x, const program::Group& y) {
        return x.id == y.id && x.kind == y.kind && x.family == y.family && x.ranks == y.ranks;
      });
}

bool same_recorded(const std::vector<program::Rank>& recorded, const program::Program& program) {
  return std::equal(recorded.begin(), recorded.end(), program.ranks.begin(), program.ranks.end(),
                    [](program::Rank r, const program::RankProgram& rp) { return r == rp.rank; });
}

}  // namespace

ReplayWorld::ReplayWorld(const hw::HardwareProfile& hw, std::int32_t gpu_count)
    : hw_(hw), topology_(hw, gpu_count) {}

const std::vector<IndexedGroup>* ReplayWorld::reusable_groups(
    const program::Program& program, const std::vector<std::int32_t>& representative) const {
  if (!kept_ || kept_->representative != representative ||
      !same_recorded(kept_->recorded, program) || !same_groups(kept_->groups, program.groups)) {
    return nullptr;
  }
  return &kept_->indexed;
}

void ReplayWorld::keep_groups(const program::Program& program,
                              const std::vector<std::int32_t>& representative,
                              const std::vector<IndexedGroup>& groups) {
  Kept kept{program.groups, {}, representative, groups};
  kept.recorded.reserve(program.ranks.size());
  for (const program::RankProgram& rp : program.ranks)
    kept.recorded.push_back(rp.rank);
  kept_ = std::move(kept);
  ++groups_kept_;
}

std::shared_ptr<std::vector<PlanSlot>> ReplayWorld::group_plans(const PlanKey& key) {
  if (!plans_ || !(key == plans_key_)) {
    plans_ = std::make_shared<std::vector<PlanSlot>>();
    plans_key_ = key;
  }
  return plans_;
}

std::array<std::int8_t, 2>& ReplayWorld::ring_verdicts(std::int32_t run, std::int32_t period,
                                                       program::GroupId group,
                                                       program::CollectiveKind kind) {
  if (verdicts_groups_ != groups_kept_) {
    verdicts_.clear();
    verdicts_groups_ = groups_kept_;
  }
  return verdicts_
      .try_emplace(VerdictKey{run, period, group, kind}, std::array<std::int8_t, 2>{-1, -1})
      .first->second;
}

}  // namespace trainsim::sim
