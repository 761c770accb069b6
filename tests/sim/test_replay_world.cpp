// A world shared by the replays and tallies of several Programs (sim/replay_world): its
// topology built once, the groups indexed once for Programs alike. The same results as each
// Program on its own, over every layout of a two-node space where Programs of one world size
// share a world (reuse between a layout's reduced runs, none between different layouts).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "reduced_layouts.hpp"
#include "sim/analysis/layout_estimate.hpp"
#include "sim/analysis/layout_space.hpp"
#include "sim/link_traffic.hpp"
#include "sim/program_index.hpp"
#include "sim/replay.hpp"
#include "sim/replay_world.hpp"
#include "sim_fixtures.hpp"

namespace trainsim::sim {
namespace {

void check_same_groups(const ProgramIndex& shared, const ProgramIndex& own) {
  REQUIRE(shared.groups.size() == own.groups.size());
  const auto same_calls = [](const IndexedGroup& x, const IndexedGroup& y) {
    return std::equal(x.calls.begin(), x.calls.end(), y.calls.begin(), y.calls.end(),
                      [](const IndexedCall& a, const IndexedCall& b) {
                        return a.size == b.size && a.kind == b.kind &&
                               a.copy_engine == b.copy_engine;
                      });
  };
  for (std::size_t g = 0; g < own.groups.size(); ++g) {
    const IndexedGroup& x = shared.groups[g];
    const IndexedGroup& y = own.groups[g];
    INFO("group " << g);
    CHECK((x.needed == y.needed && x.gpus == y.gpus && x.rings.channels == y.rings.channels &&
           x.rings.order == y.rings.order && x.nodes == y.nodes && x.driven == y.driven &&
           x.launches == y.launches && x.instances == y.instances && same_calls(x, y)));
  }
}

bool same_breakdowns(const SimulationResult& x, const SimulationResult& y) {
  return std::equal(x.breakdown.begin(), x.breakdown.end(), y.breakdown.begin(), y.breakdown.end(),
                    [](const TimeBreakdown& a, const TimeBreakdown& b) {
                      return a.compute == b.compute && a.recompute == b.recompute &&
                             a.optimizer == b.optimizer && a.exposed_comm == b.exposed_comm &&
                             a.bubble == b.bubble && a.host == b.host && a.other == b.other;
                    });
}

void check_same_replay(const SimulationResult& shared, const SimulationResult& alone) {
  CHECK(shared.iteration_time == alone.iteration_time);
  CHECK(shared.fold_run == alone.fold_run);
  CHECK(same_breakdowns(shared, alone));
  REQUIRE(shared.memory.size() == alone.memory.size());
  for (std::size_t r = 0; r < alone.memory.size(); ++r)
    CHECK(shared.memory[r].peak == alone.memory[r].peak);
}

TEST_CASE("ReplayWorld: shared by reduced runs, the same index, replay and traffic as alone") {
  const ModelSpec model = test::small_model(4);
  const hw::HardwareProfile hw = test::rail_profile();
  std::map<std::int32_t, std::unique_ptr<ReplayWorld>> worlds;  // by GPU count
  std::size_t programs = 0;
  for (const Layout& reduced : test::two_node_reduced_layouts(model)) {
    std::uint64_t kept_before = 0;  // groups kept by the world of this layout's runs
    for (const std::int64_t layers : {1, 2}) {
      for (const std::int64_t micro_batches : {1, 2}) {
        const program::Program p = reduced_program(model, reduced, layers, micro_batches);
        auto& world = worlds[p.world_size];
        if (!world) world = std::make_unique<ReplayWorld>(hw, p.world_size);
        if (layers * micro_batches == 1) kept_before = world->groups_kept();
        INFO(describe(reduced) << " l=" << layers << " m=" << micro_batches);
        // A layout's reduced runs differ in layers and micro batches only: the groups of its
        // first are reused by the others.
        if (layers * micro_batches > 1) {
          CHECK(world->reusable_groups(p, index_program(p, hw, world->topology()).representative) !=
                nullptr);
        }
        Topology own(hw, p.world_size);
        check_same_groups(index_program(p, *world), index_program(p, hw, own));
        const LinkTraffic shared_traffic = link_traffic(p, *world);
        const LinkTraffic own_traffic = link_traffic(p, hw, own);
        CHECK(shared_traffic.bytes == own_traffic.bytes);
        ReplayOptions options;
        options.record_op_timings = false;
        check_same_replay(replay(p, *world, options), replay(p, hw, options));
        // Indexed three times each, the four runs' groups were indexed anew at most once.
        CHECK(world->groups_kept() <= kept_before + 1);
        ++programs;
      }
    }
  }
  CHECK(programs > 40);
  CHECK(worlds.size() > 1);
}

TEST_CASE("ReplayWorld: a fold switched off and on again, and Simulations made before a change") {
  // Launch plans are kept per (groups, fold, engines): a replay without the fold on the same
  // world (another key) and one with it again, each as its Program alone; a Simulation made
  // under the first key and run after the others still runs on its own plans.
  const ModelSpec model = test::small_model(4);
  const hw::HardwareProfile hw = test::rail_profile();
  std::size_t folded = 0;
  for (const Layout& reduced : test::two_node_reduced_layouts(model)) {
    const program::Program p = reduced_program(model, reduced, 2, 2);
    ReplayOptions on;
    on.record_op_timings = false;
    ReplayOptions off = on;
    off.fold_nodes = false;
    const SimulationResult alone = replay(p, hw, on);
    if (alone.fold_run < 2) continue;
    INFO(describe(reduced));
    ReplayWorld world(hw, p.world_size);
    Simulation early(p, world, on);
    check_same_replay(replay(p, world, on), alone);
    check_same_replay(replay(p, world, off), replay(p, hw, off));
    check_same_replay(replay(p, world, on), alone);
    check_same_replay(early.run(), alone);
    ++folded;
  }
  CHECK(folded > 0);
}

TEST_CASE("ReplayWorld: groups reused only for a Program with the same groups and ranks") {
  const hw::HardwareProfile hw = test::rail_profile();
  const auto program = [](std::vector<program::Rank> dp) {
    test::ProgramBuilder b(16);
    b.group(program::GroupKind::tp, {0, 1, 2, 3}, 0);
    b.group(program::GroupKind::dp, std::move(dp), 1);
    return b.program();
  };
  ReplayWorld world(hw, 16);
  const program::Program first = program({0, 8});
  CHECK(world.reusable_groups(first, first.representative) == nullptr);
  const ProgramIndex index = index_program(first, world);
  const std::vector<IndexedGroup>* kept = world.reusable_groups(first, first.representative);
  REQUIRE(kept != nullptr);
  REQUIRE(kept->size() == 2);
  CHECK((*kept)[1].gpus == std::vector<std::int32_t>{0, 8});
  CHECK((*kept)[1].nodes == 2);
  const program::Program other = program({0, 9});
  CHECK(world.reusable_groups(other, other.representative) == nullptr);
  check_same_groups(index_program(other, world), [&] {
    Topology own(hw, 16);
    return index_program(other, hw, own);
  }());
  CHECK(world.reusable_groups(first, first.representative) == nullptr);
  std::vector<std::int32_t> moved = first.representative;
  std::swap(moved[0], moved[1]);
  CHECK(world.reusable_groups(other, moved) == nullptr);
  const program::Program wrong_size = [] {
    test::ProgramBuilder b(8);
    return b.program();
  }();
  CHECK_THROWS_AS(index_program(wrong_size, world), std::invalid_argument);
  CHECK_THROWS_AS(link_traffic(wrong_size, world), std::invalid_argument);
  CHECK_THROWS_AS(replay(wrong_size, world), std::invalid_argument);
}

}  // namespace
}  // namespace trainsim::sim
