// CP rank 0 standing for its ring (build_program with the node size): where every hop of the
// ring crosses the same kind of link, the replay equals the one recording each CP rank, and
// that of every rank; elsewhere each CP rank is still recorded; a Program built for one node
// size is refused on another.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "models/build_program.hpp"
#include "sim/invalid_program.hpp"
#include "sim/link_traffic.hpp"
#include "sim/replay.hpp"
#include "sim/topology.hpp"
#include "sim_fixtures.hpp"
#include "units/doctest_printers.hpp"

using namespace trainsim;
using namespace trainsim::sim;

namespace {

// small_profile (4 GPUs per node) with 2 NICs and communication and compute slowing each
// other, so the CP transfers share links and engines with TP and DP traffic.
hw::HardwareProfile four_per_node() {
  hw::HardwareProfile hw = test::small_profile();
  hw.comm_slowdown_during_compute = 0.3;
  hw.compute_slowdown_during_comm = 0.2;
  hw.network.nics_per_node = 2;
  hw.gpu.attention = hw::AttentionSpec{0.6, 0.4, Time::zero(), Time::zero()};
  return hw;
}

// small_model with context parallelism's requirements: flash attention, rotary positions.
ModelSpec ring_model() {
  ModelSpec model = test::small_model(4);
  model.attention = AttentionKind::flash;
  model.position = PositionKind::rope;
  return model;
}

struct Case {
  std::int64_t tp, cp, pp, dp;
  int zero;
};

ParallelPlan plan_of(const Case& c) {
  return test::plan_of(c.tp, c.cp, c.pp, c.dp, c.zero);
}

TrainingSpec batches_of(const Case& c) {
  TrainingSpec training;
  training.global_batch = 2 * c.dp * c.pp;
  training.micro_batch = 1;
  return training;
}

// The recorded rank of `p` that is world rank `rank`.
std::size_t slot_of(const program::Program& p, program::Rank rank) {
  for (std::size_t i = 0; i < p.ranks.size(); ++i) {
    if (p.ranks[i].rank == rank) return i;
  }
  FAIL("rank ", rank, " is not recorded");
  return 0;
}

}  // namespace

TEST_CASE("CP rank 0 stands for its ring: the replay of each CP rank recorded, and of every rank") {
  const hw::HardwareProfile hw = four_per_node();
  const ModelSpec model = ring_model();
  // On 4-GPU nodes: TP 4 puts each CP rank on a node of its own (every hop leaves the node);
  // TP 1 × CP 4 and TP 2 × CP 2 keep each ring inside one node.
  for (const Case c : {Case{4, 2, 1, 2, 1}, Case{4, 2, 2, 1, 0}, Case{1, 4, 2, 2, 1},
                       Case{2, 2, 2, 2, 3}, Case{1, 2, 1, 4, 1}}) {
    CAPTURE(c.tp);
    CAPTURE(c.cp);
    CAPTURE(c.pp);
    CAPTURE(c.dp);
    const ParallelPlan plan = plan_of(c);
    const TrainingSpec training = batches_of(c);
    const program::Program each =
        build_program(model, plan, training, ProgramScope::representative);
    const program::Program ring =
        build_program(model, plan, training, ProgramScope::representative, hw.node.gpus);
    const program::Program every = build_program(model, plan, training, ProgramScope::every_rank);
    CHECK(each.gpus_per_node == 0);
    CHECK(ring.gpus_per_node == hw.node.gpus);
    CHECK(ring.ranks.size() * static_cast<std::size_t>(c.cp) == each.ranks.size());
    for (const program::RankProgram& r : ring.ranks)
      CHECK(ring.axes.cp_of(r.rank) == 0);

    // Where each CP rank's TP group has nodes of its own, the ranks run exactly alike. Where
    // the ring shares a node, its GPUs take different places in the DP rings across nodes
    // (which of them hands over to the next node), so with communication slowed under compute
    // the ranks drift apart by picoseconds within the iteration and meet again at its end, in
    // the replays of each CP rank and of every rank: CP rank 0 standing for the others ends
    // within a millionth of them (as DP replica 0 does for the other replicas).
    const SimulationResult by_each = replay(each, hw);
    const SimulationResult by_ring = replay(ring, hw);
    const SimulationResult by_every = replay(every, hw);
    REQUIRE(by_ring.stuck.empty());
    if (c.tp % hw.node.gpus == 0) CHECK(by_ring.iteration_time == by_each.iteration_time);
    CHECK(by_ring.iteration_time.seconds() ==
          doctest::Approx(by_each.iteration_time.seconds()).epsilon(1e-6));
    CHECK(by_ring.iteration_time.seconds() ==
          doctest::Approx(by_every.iteration_time.seconds()).epsilon(1e-6));
    CHECK(by_ring.fold_run == by_each.fold_run);
    for (std::size_t i = 0; i < ring.ranks.size(); ++i) {
      const std::size_t j = slot_of(each, ring.ranks[i].rank);
      CHECK(by_ring.memory[i].peak == by_each.memory[j].peak);
      CHECK(by_ring.breakdown[i].compute.seconds() ==
            doctest::Approx(by_each.breakdown[j].compute.seconds()).epsilon(1e-6));
    }

    // The bytes on every link: as with each CP rank recorded, folded or not.
    Topology topology(hw, ring.world_size);
    const LinkTraffic folded = link_traffic(ring, hw, topology);
    const LinkTraffic full = link_traffic(each, hw, topology, false);
    REQUIRE(folded.bytes.size() == full.bytes.size());
    for (std::size_t l = 0; l < full.bytes.size(); ++l) {
      CAPTURE(l);
      CHECK(folded.bytes[l] == doctest::Approx(full.bytes[l]).epsilon(1e-12));
    }
  }
}

TEST_CASE("CP ranks are each recorded where the ring's hops differ, or a window breaks the split") {
  const hw::HardwareProfile hw = four_per_node();
  ModelSpec model = ring_model();
  // TP 2 × CP 4 on 4-GPU nodes: hops 0->1 and 2->3 stay inside a node, 1->2 and 3->0 leave it.
  Case c{2, 4, 1, 1, 0};
  const program::Program mixed =
      build_program(model, plan_of(c), batches_of(c), ProgramScope::representative, 4);
  CHECK(mixed.gpus_per_node == 0);
  CHECK(mixed.ranks.size() == 4);
  // A sliding window sees different key blocks from each CP rank.
  c = Case{4, 2, 1, 1, 0};
  model.attention_window = AttentionWindow{64, 1};
  const program::Program windowed =
      build_program(model, plan_of(c), batches_of(c), ProgramScope::representative, 4);
  CHECK(windowed.gpus_per_node == 0);
  CHECK(windowed.ranks.size() == 2);
}

TEST_CASE("a Program built for one node size is refused on another") {
  hw::HardwareProfile hw = four_per_node();
  const Case c{4, 2, 1, 1, 0};
  const program::Program ring = build_program(ring_model(), plan_of(c), batches_of(c),
                                              ProgramScope::representative, hw.node.gpus);
  REQUIRE(ring.ranks.size() == 1);
  hw.node.gpus = 8;
  CHECK_THROWS_WITH_AS(replay(ring, hw),
                       doctest::Contains("recorded for nodes of 4 GPUs (CP rank 0 standing for "
                                         "its ring), replayed on nodes of 8"),
                       InvalidProgram);
}

TEST_CASE("RankAxes::translate moves a rank by another's offset, around each axis") {
  // TP 2, CP 3, DP 2, PP 2: rank = tp + 2·(cp + 3·(dp + 2·pp)).
  const program::RankAxes axes{2, 3, 2, 2};
  const auto rank = [](int tp, int cp, int dp, int pp) {
    return tp + 2 * (cp + 3 * (dp + 2 * pp));
  };
  CHECK(axes.cp_of(rank(1, 2, 1, 1)) == 2);
  // CP rank 0 sends to CP rank 1; CP rank 2's image sends to CP rank 0, around the ring.
  CHECK(axes.translate(rank(0, 1, 0, 0), rank(0, 0, 0, 0), rank(0, 2, 0, 0)) == rank(0, 0, 0, 0));
  // With TP and DP offsets as well, and a pipeline hop (no wrap: the plain rank offset).
  CHECK(axes.translate(rank(0, 1, 0, 1), rank(0, 0, 0, 1), rank(1, 2, 1, 1)) == rank(1, 0, 1, 1));
  const program::Rank from = rank(0, 1, 0, 0);
  const program::Rank to = rank(0, 1, 0, 1);
  const program::Rank image = rank(1, 1, 1, 0);
  CHECK(axes.translate(to, from, image) == to + (image - from));
}
