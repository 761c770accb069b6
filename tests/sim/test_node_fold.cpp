// The node fold (sim/node_fold.hpp): a representative replay over many nodes folded onto one
// node of each role gives exactly the unfolded replay's result, where it folds, where a
// rooted collective runs beside the folded flows, and where one meets them (the replay then
// starts again unfolded).

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "models/build_program.hpp"
#include "sim/collective_model.hpp"
#include "sim/link_traffic.hpp"
#include "sim/node_fold.hpp"
#include "sim/program_index.hpp"
#include "sim/replay.hpp"
#include "sim/replay_world.hpp"
#include "sim/topology.hpp"
#include "sim_fixtures.hpp"
#include "units/doctest_printers.hpp"

using namespace trainsim;
using namespace trainsim::sim;
using program::CollectiveKind;
using program::GroupKind;
using program::Stream;
using test::gemm;
using test::ProgramBuilder;

namespace {

// small_profile on 2 GPUs per node with 2 NICs, communication slowed under compute (so the
// communication engines are links) and compute under communication.
hw::HardwareProfile two_per_node() {
  hw::HardwareProfile hw = test::small_profile();
  hw.node.gpus = 2;
  hw.network.nics_per_node = 2;
  hw.comm_slowdown_during_compute = 0.3;
  hw.compute_slowdown_during_comm = 0.2;
  return hw;
}

program::Collective collective(CollectiveKind kind, program::GroupId g, Bytes size) {
  return program::Collective{kind, g, size, DType::bf16};
}

// `nodes` nodes of 2 GPUs, TP 2 in each and DP across; ranks 0 and 1 recorded, standing for
// every node's. Each layer: a GEMM, a TP all-reduce, a GEMM, a DP reduce-scatter and
// all-gather (rings); then a scalar DP all-reduce (a tree across enough nodes) that follows
// the last reduce-scatter (`after_dp`) or runs beside it; with `world_scalar`, last a scalar
// all-reduce over every GPU (a tree whose chains inside each node are symmetric where its
// tree across them is not: a gradient norm's).
program::Program tp_dp_program(std::int32_t nodes, bool after_dp, bool world_scalar = false) {
  const std::int32_t world = 2 * nodes;
  std::vector<std::int32_t> representative;
  for (std::int32_t r = 0; r < world; ++r)
    representative.push_back(r % 2);
  ProgramBuilder b(world, {0, 1}, representative);
  std::vector<program::GroupId> tp;
  for (std::int32_t n = 0; n < nodes; ++n)
    tp.push_back(b.group(GroupKind::tp, {2 * n, 2 * n + 1}, 0));
  std::vector<program::GroupId> dp;
  for (std::int32_t j = 0; j < 2; ++j) {
    std::vector<program::Rank> members;
    for (std::int32_t n = 0; n < nodes; ++n)
      members.push_back(2 * n + j);
    dp.push_back(b.group(GroupKind::dp, members, 1));
  }
  std::vector<program::Rank> everyone;
  for (std::int32_t r = 0; r < world; ++r)
    everyone.push_back(r);
  const program::GroupId all =
      world_scalar ? b.group(GroupKind::optimizer, everyone, 2) : program::GroupId{-1};
  for (std::size_t r = 0; r < 2; ++r) {
    program::OpIndex last = -1;
    program::OpIndex reduced = -1;
    for (int layer = 0; layer < 3; ++layer) {
      const auto g = last < 0 ? b.add(r, gemm(512, 384, 2048))
                              : b.add(r, gemm(512, 384, 2048), Stream::compute, {last});
      const auto ar = b.add(r, collective(CollectiveKind::all_reduce, tp[0], Bytes::of(2'000'000)),
                            Stream::tp, {g});
      last = b.add(r, gemm(512, 512, 1024), Stream::compute, {ar});
      reduced = b.add(r, collective(CollectiveKind::reduce_scatter, dp[r], Bytes::of(8'000'000)),
                      Stream::dp, {last});
      b.add(r, collective(CollectiveKind::all_gather, dp[r], Bytes::of(4'000'000)), Stream::dp,
            {reduced});
    }
    if (after_dp) {
      b.add(r, collective(CollectiveKind::all_reduce, dp[r], Bytes::of(4)), Stream::dp, {reduced});
    } else {
      b.add(r, collective(CollectiveKind::all_reduce, dp[r], Bytes::of(4)), Stream::tp, {last});
    }
    if (world_scalar)
      b.add(r, collective(CollectiveKind::all_reduce, all, Bytes::of(4)), Stream::dp);
  }
  return b.program();
}

void check_same(const SimulationResult& folded, const SimulationResult& full) {
  REQUIRE(folded.stuck.empty());
  REQUIRE(full.stuck.empty());
  CHECK(folded.iteration_time == full.iteration_time);
  REQUIRE(folded.timelines.size() == full.timelines.size());
  for (std::size_t r = 0; r < full.timelines.size(); ++r) {
    REQUIRE(folded.timelines[r].ops.size() == full.timelines[r].ops.size());
    for (std::size_t i = 0; i < full.timelines[r].ops.size(); ++i) {
      CHECK(folded.timelines[r].ops[i].start == full.timelines[r].ops[i].start);
      CHECK(folded.timelines[r].ops[i].end == full.timelines[r].ops[i].end);
    }
    CHECK(folded.memory[r].peak == full.memory[r].peak);
    CHECK(folded.memory[r].peak_at == full.memory[r].peak_at);
    CHECK(folded.breakdown[r].compute == full.breakdown[r].compute);
    CHECK(folded.breakdown[r].exposed_comm == full.breakdown[r].exposed_comm);
    CHECK(folded.breakdown[r].other == full.breakdown[r].other);
  }
}

SimulationResult unfolded(const program::Program& p, const hw::HardwareProfile& hw) {
  ReplayOptions options;
  options.fold_nodes = false;
  return replay(p, hw, options);
}

// Whether a scalar all-reduce over group `from_end` counted from the last (1: the last) runs
// as a tree.
bool scalar_runs_as_tree(const program::Program& p, const hw::HardwareProfile& hw,
                         std::size_t from_end = 2) {
  Topology topology(hw, p.world_size);
  const ProgramIndex index = index_program(p, hw, topology);
  const IndexedGroup& g = index.groups[index.groups.size() - from_end];
  return choose_algorithm(CollectiveKind::all_reduce, Bytes::of(4), g.gpus, g.rings, topology, hw)
             .algorithm == CollectiveAlgorithm::tree;
}

// A folded tally equals the full one, link by link (summed in another order: to rounding),
// and the full one carries some traffic.
void check_same_bytes(const LinkTraffic& folded, const LinkTraffic& full) {
  REQUIRE(folded.bytes.size() == full.bytes.size());
  double total = 0.0;
  for (std::size_t l = 0; l < full.bytes.size(); ++l) {
    CAPTURE(l);
    CHECK(folded.bytes[l] == doctest::Approx(full.bytes[l]).epsilon(1e-12));
    total += full.bytes[l];
  }
  CHECK(total > 0.0);
}

void check_same_traffic(const program::Program& p, const hw::HardwareProfile& hw) {
  Topology topology(hw, p.world_size);
  check_same_bytes(link_traffic(p, hw, topology), link_traffic(p, hw, topology, false));
}

// On tp_dp_program(4)'s fold: which groups' tree chains are symmetric by shape, and the chains
// made for the kept node alone are the full tree's there.
void check_tree_chains(const NodeFold& fold, const Topology& topology,
                       const hw::HardwareProfile& hw) {
  CHECK(fold.kept_nodes().size() == 4);
  CHECK(fold.kept_nodes()[0] == 1);
  CHECK(fold.kept_nodes()[1] == 0);
  CHECK(fold.chains_symmetric(std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  CHECK(fold.chains_symmetric(std::vector<std::int32_t>{1, 3, 5, 7}));  // one member a node
  // Nodes 0 and 1 alone: the shift takes node 1 to node 2, outside the group.
  CHECK_FALSE(fold.chains_symmetric(std::vector<std::int32_t>{0, 1, 2, 3}));
  // Node 1's members in the other order: its chain runs the other way.
  CHECK_FALSE(fold.chains_symmetric(std::vector<std::int32_t>{0, 1, 3, 2, 4, 5, 6, 7}));
  // Node 2 holds one member where the others hold two.
  CHECK_FALSE(fold.chains_symmetric(std::vector<std::int32_t>{0, 1, 2, 3, 4, 6, 7}));
  CHECK_FALSE(NodeFold().chains_symmetric(std::vector<std::int32_t>{0, 1, 2, 3}));
  // Made for the kept node alone, a tree's chains are the full tree's chains there.
  const std::vector<std::int32_t> all{0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<FlowSpec> full;
  std::vector<FlowSpec> kept;
  append_tree_flows(Bytes::of(1000), all, topology, hw.network.nics_per_node, full);
  append_tree_flows(Bytes::of(1000), all, topology, hw.network.nics_per_node, kept,
                    fold.kept_nodes());
  std::vector<FlowSpec> expected;
  for (const FlowSpec& f : full) {
    const bool inside = topology.node_of(f.src) == topology.node_of(f.dst);
    if (!inside || topology.node_of(f.src) == 0) expected.push_back(f);
  }
  REQUIRE(kept.size() == expected.size());
  REQUIRE(kept.size() < full.size());
  for (std::size_t i = 0; i < kept.size(); ++i) {
    CHECK(kept[i].src == expected[i].src);
    CHECK(kept[i].dst == expected[i].dst);
    CHECK(kept[i].bytes == expected[i].bytes);
  }
}

}  // namespace

TEST_CASE(
    "node fold: a ring across nodes is its own image under the shift, a chain is not, a tree's "
    "chains are by their groups' shape") {
  const hw::HardwareProfile hw = two_per_node();
  const program::Program p = tp_dp_program(4, true);
  Topology topology(hw, p.world_size);
  const ProgramIndex index = index_program(p, hw, topology);
  const NodeFold fold(p, index, topology, hw, -1);
  REQUIRE(fold.active());
  CHECK(fold.run() == 4);
  CHECK(fold.keeps(0));
  CHECK(fold.keeps(1));
  CHECK_FALSE(fold.keeps(2));
  std::vector<FlowSpec> ring;
  for (std::int32_t n = 0; n < 4; ++n)
    ring.push_back({2 * n, 2 * ((n + 1) % 4), 10.0});
  CHECK(fold.invariant(ring));
  std::vector<FlowSpec> chain(ring.begin(), ring.end() - 1);
  CHECK_FALSE(fold.invariant(chain));
  std::vector<FlowSpec> uneven = ring;
  uneven[2].bytes = 11.0;
  CHECK_FALSE(fold.invariant(uneven));
  // Links go to their images in node 0: a route from node 2 to node 3 and one from node 0 to
  // node 1 cross the same NIC of node 0 going up and the same one coming down.
  const std::vector<std::int32_t> first{0, 0, 0, 0};
  const std::vector<LinkId> image = topology.link_images(first);
  const Topology::Links far = topology.route_links(4, 6);
  const Topology::Links near = topology.route_links(0, 2);
  REQUIRE(far.count == 2);
  REQUIRE(near.count == 2);
  CHECK(image[static_cast<std::size_t>(near.ids[0])] == near.ids[0]);
  CHECK(image[static_cast<std::size_t>(far.ids[0])] == near.ids[0]);
  CHECK(image[static_cast<std::size_t>(far.ids[1])] ==
        image[static_cast<std::size_t>(near.ids[1])]);
  CHECK(image[static_cast<std::size_t>(near.ids[1])] != near.ids[1]);
  CHECK(topology.node_of(0) == 0);
  CHECK_THROWS_AS(topology.link_images(std::vector<std::int32_t>{0, 0}), std::invalid_argument);
  check_tree_chains(fold, topology, hw);
}

TEST_CASE("node fold: launches the shift permutes member by member, and a ring's verdicts kept") {
  const hw::HardwareProfile hw = two_per_node();
  const program::Program p = tp_dp_program(4, true);
  Topology topology(hw, p.world_size);
  const ProgramIndex index = index_program(p, hw, topology);
  const NodeFold fold(p, index, topology, hw, -1, NodeFold::Use::tally);
  REQUIRE(fold.active());
  REQUIRE(fold.period() == 1);
  // Group 0 (TP on node 0) launches every node's TP group: the shift takes each to the next.
  const std::vector<program::GroupId>& tp = index.groups[0].launches;
  REQUIRE(tp.size() == 4);
  CHECK(fold.launches_symmetric(tp, index));
  // Node 3's group left out: node 2's has no image among them.
  CHECK_FALSE(fold.launches_symmetric(std::span(tp).first(3), index));
  // One group twice: two lists start at one GPU.
  CHECK_FALSE(fold.launches_symmetric(std::vector<program::GroupId>{0, 0, 1, 2, 3}, index));
  // The DP ring over every node (group 4): the shift rotates its list (its image starts at
  // GPU 2, where no launch starts), so not onto itself member by member (its flows are their
  // own image, which `invariant` finds).
  const std::vector<program::GroupId>& dp = index.groups[4].launches;
  REQUIRE(dp.size() == 1);
  CHECK_FALSE(fold.launches_symmetric(dp, index));
  CHECK_FALSE(NodeFold().launches_symmetric(tp, index));

  // A tally through a world keeps what it found of the DP ring's reduce-scatter (no flow inside
  // a node, the ring across them its own image) and reads it back the next time, which gives
  // the traffic a tally alone gives.
  ReplayWorld world(hw, p.world_size);
  const LinkTraffic first = link_traffic(p, world);
  std::array<std::int8_t, 2>& verdicts =
      world.ring_verdicts(fold.run(), fold.period(), 4, CollectiveKind::reduce_scatter);
  CHECK(verdicts == std::array<std::int8_t, 2>{1, 1});
  verdicts = {0, 0};  // read back, not found again: stays as set
  const LinkTraffic second = link_traffic(p, world);
  CHECK(world.ring_verdicts(fold.run(), fold.period(), 4, CollectiveKind::reduce_scatter) ==
        std::array<std::int8_t, 2>{0, 0});
  Topology own(hw, p.world_size);
  const LinkTraffic alone = link_traffic(p, hw, own);
  REQUIRE(alone.bytes.size() == first.bytes.size());
  for (std::size_t l = 0; l < alone.bytes.size(); ++l) {
    CAPTURE(l);
    CHECK(first.bytes[l] == alone.bytes[l]);
    CHECK(second.bytes[l] == doctest::Approx(alone.bytes[l]).epsilon(1e-12));
  }
  check_same_traffic(p, hw);
}

TEST_CASE("node fold: a ring family rotated by the shift, tallied twice through one world") {
  // 4 nodes of 2 GPUs, GPU 0 recorded for all: ring X0 over every node's first GPU launches
  // X1 over the second GPUs. The shift rotates both lists (not permuted), their flows are
  // their own image: the first tally finds it, the second reads it and routes the kept
  // flows alone; both equal the unfolded tally.
  const hw::HardwareProfile hw = two_per_node();
  ProgramBuilder b(8, {0}, std::vector<std::int32_t>(8, 0));
  const program::GroupId x0 = b.group(GroupKind::dp, {0, 2, 4, 6}, 0);
  b.group(GroupKind::dp, {1, 3, 5, 7}, 0);
  for (const std::int64_t size : {1000, 3000})
    b.add(0, collective(CollectiveKind::all_gather, x0, Bytes::of(size)), Stream::dp);
  const program::Program p = b.program();
  Topology topology(hw, p.world_size);
  const ProgramIndex index = index_program(p, hw, topology);
  const NodeFold fold(p, index, topology, hw, -1, NodeFold::Use::tally);
  REQUIRE(fold.active());
  REQUIRE(index.groups[static_cast<std::size_t>(x0)].launches.size() == 2);
  CHECK_FALSE(fold.launches_symmetric(index.groups[static_cast<std::size_t>(x0)].launches, index));
  ReplayWorld world(hw, p.world_size);
  const LinkTraffic first = link_traffic(p, world);
  CHECK(world.ring_verdicts(fold.run(), fold.period(), x0, CollectiveKind::all_gather) ==
        std::array<std::int8_t, 2>{1, 1});
  const LinkTraffic second = link_traffic(p, world);
  const LinkTraffic full = link_traffic(p, hw, topology, false);
  check_same_bytes(first, full);
  check_same_bytes(second, full);
}

TEST_CASE("node fold: TP inside nodes and DP rings across 8 nodes replay as the full network") {
  const hw::HardwareProfile hw = two_per_node();
  const program::Program p = tp_dp_program(8, true);
  REQUIRE(scalar_runs_as_tree(p, hw));
  const SimulationResult folded = replay(p, hw);
  CHECK(folded.fold_run == 8);  // the scalar's tree ran beside no folded flow
  const SimulationResult full = unfolded(p, hw);
  CHECK(full.fold_run == 1);
  check_same(folded, full);
  CHECK(full.breakdown[0].exposed_comm[static_cast<std::size_t>(GroupKind::dp)] > Time::zero());
}

TEST_CASE("node fold: a scalar tree over every GPU folds its chains, its tree runs beside") {
  const hw::HardwareProfile hw = two_per_node();
  const program::Program p = tp_dp_program(8, true, true);
  REQUIRE(scalar_runs_as_tree(p, hw, 1));
  const SimulationResult folded = replay(p, hw);
  CHECK(folded.fold_run == 8);
  check_same(folded, unfolded(p, hw));
  check_same_traffic(p, hw);
  check_same_traffic(tp_dp_program(8, false), hw);
}

TEST_CASE("node fold: a tree meeting folded flows starts the replay again, unfolded") {
  const hw::HardwareProfile hw = two_per_node();
  const program::Program p = tp_dp_program(8, false);
  REQUIRE(scalar_runs_as_tree(p, hw));
  const SimulationResult result = replay(p, hw);
  CHECK(result.fold_run == 1);
  check_same(result, unfolded(p, hw));
}

TEST_CASE(
    "node fold: executor Programs (ZeRO 1 and 3, pipelines, CP) fold and match the full replay") {
  hw::HardwareProfile hw = test::small_profile();
  hw.comm_slowdown_during_compute = 0.3;
  hw.compute_slowdown_during_comm = 0.2;
  hw.network.nics_per_node = 2;
  hw.gpu.attention = hw::AttentionSpec{0.6, 0.4, Time::zero(), Time::zero()};
  ModelSpec model = test::small_model(4);
  // Context parallelism's ring runs in fused kernels, with rotary positions.
  model.attention = AttentionKind::flash;
  model.position = PositionKind::rope;
  struct Case {
    std::int64_t tp, cp, pp, dp;
    int zero;
    std::int32_t run;  ///< nodes per kept node
  };
  // 4 GPUs per node: TP 2 × DP 8 is 4 nodes of one role; PP 2 stages of 2 nodes each; TP 4 ×
  // CP 2 puts the CP ranks, recorded one by one, on alternate nodes (a shift by 2 nodes).
  for (const Case c : {Case{2, 1, 1, 8, 3, 4}, Case{2, 1, 1, 8, 1, 4}, Case{2, 1, 2, 4, 1, 2},
                       Case{1, 1, 2, 8, 3, 2}, Case{4, 2, 1, 4, 1, 4}}) {
    CAPTURE(c.tp);
    CAPTURE(c.cp);
    CAPTURE(c.pp);
    CAPTURE(c.dp);
    CAPTURE(c.zero);
    const ParallelPlan plan = test::plan_of(c.tp, c.cp, c.pp, c.dp, c.zero);
    TrainingSpec training;
    training.global_batch = 2 * c.dp * c.pp;
    training.micro_batch = 1;
    const program::Program p = build_program(model, plan, training, ProgramScope::representative);
    const SimulationResult folded = replay(p, hw);
    CHECK(folded.fold_run == c.run);
    check_same(folded, unfolded(p, hw));
    check_same_traffic(p, hw);
  }
}
