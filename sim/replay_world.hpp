#pragma once
// What replays and traffic tallies of several Programs over one world share, built once: the
// topology (with the routes found so far) and the indexed groups of the last Program, which
// the next one reuses when it has the same groups, representatives and recorded ranks. A
// layout's reduced runs (one and two layers, one and two micro batches: analysis/) differ in
// nothing else, and indexing the groups, their NCCL rings over thousands of nodes, was three
// quarters of indexing such a Program on 8192 GPUs. Replays also share the launch plans worked
// out under the same groups and fold. One thread at a time.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "models/program.hpp"
#include "sim/hardware_profile.hpp"
#include "sim/launch_plan.hpp"
#include "sim/program_index.hpp"
#include "sim/topology.hpp"

namespace trainsim::sim {

class ReplayWorld {
 public:
  /// `hw`'s cluster of `gpu_count` GPUs; `hw` must outlive the world. Throws
  /// std::invalid_argument as Topology does.
  ReplayWorld(const hw::HardwareProfile& hw, std::int32_t gpu_count);

  const hw::HardwareProfile& hardware() const { return hw_; }
  Topology& topology() { return topology_; }
  std::int32_t gpu_count() const { return topology_.gpu_count(); }

  /// The groups indexed for the Program last given to `keep_groups`, or null unless `program`
  /// has the same groups, recorded ranks and `representative` (which alone decide them:
  /// IndexedGroup's members, rings and launches; its calls are the Program's own, left empty).
  const std::vector<IndexedGroup>* reusable_groups(
      const program::Program& program, const std::vector<std::int32_t>& representative) const;
  /// Keeps `groups`, indexed for `program`, for the next: given before the ranks are indexed,
  /// so without calls or instances (index_program).
  void keep_groups(const program::Program& program, const std::vector<std::int32_t>& representative,
                   const std::vector<IndexedGroup>& groups);
  /// How many sets of groups were kept: the current set's PlanKey::groups.
  std::uint64_t groups_kept() const { return groups_kept_; }

  /// The group launch plans that replays on this world made under `key` (sim/launch_plan.hpp),
  /// for one more: emptied first when the key differs from theirs (other groups, another
  /// fold). A layout's reduced runs launch the same collectives at mostly the same sizes.
  /// A new store replaces the old on a key change, so a Simulation made earlier keeps its own.
  std::shared_ptr<std::vector<PlanSlot>> group_plans(const PlanKey& key);

  /// Whether a ring collective's flows on the launches of group `group` are their own image
  /// under a node fold of `run` × `period` (NodeFold::invariant), inside nodes and across:
  /// per part 1 yes, 0 no, -1 not known yet. A ring puts one size on every flow when its
  /// launches have one member count and channel count, so the verdict holds for every size;
  /// traffic tallies of Programs alike (a layout's four reduced runs) check each once. For
  /// the current groups (groups_kept()): a new set of groups forgets them.
  std::array<std::int8_t, 2>& ring_verdicts(std::int32_t run, std::int32_t period,
                                            program::GroupId group, program::CollectiveKind kind);

 private:
  struct Kept {
    std::vector<program::Group> groups;
    std::vector<program::Rank> recorded;
    std::vector<std::int32_t> representative;
    std::vector<IndexedGroup> indexed;
  };

  const hw::HardwareProfile& hw_;
  Topology topology_;
  std::optional<Kept> kept_;
  std::uint64_t groups_kept_ = 0;
  PlanKey plans_key_;
  std::shared_ptr<std::vector<PlanSlot>> plans_;
  using VerdictKey =
      std::tuple<std::int32_t, std::int32_t, program::GroupId, program::CollectiveKind>;
  std::map<VerdictKey, std::array<std::int8_t, 2>> verdicts_;
  std::uint64_t verdicts_groups_ = 0;  ///< the groups_kept() they were found under
};

}  // namespace trainsim::sim
