// CP rank 0 standing for its ring (build_program with the node size): where every hop of the
// ring crosses the same kind of link, the replay equals the one recording each CP rank, and
// that of every rank; elsewhere each CP rank is still recorded; a Program built for one node
// size is refused on another.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <variant>

#include "models/build_program.hpp"
#include "sim/invalid_program.hpp"
#include "sim/link_traffic.hpp"
#include "sim/program_index.hpp"
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
  std::int64_t chunks = 1;  ///< above 1: the interleaved schedule
  bool recompute = false;   ///< full recomputation
};

ParallelPlan plan_of(const Case& c) {
  ParallelPlan plan = test::plan_of(c.tp, c.cp, c.pp, c.dp, c.zero);
  if (c.chunks > 1) {
    plan.pipeline.schedule = PipelineSchedule::interleaved;
    plan.pipeline.chunks = c.chunks;
  }
  if (c.recompute) plan.recompute = Recompute::full;
  return plan;
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

// Where every rank of a ring is recorded, and for pipelines (with the interleaved schedule's
// wrap from the last stage to the first), grids and cubes, each image of a send goes to the
// peer at its plain rank offset, as before translate went around each axis: checks every image
// the replay keeps (the offset's peer stands under the channel's receiver), and that there are
// some.
void check_offsets_kept(const program::Program& p, const hw::HardwareProfile& hw) {
  REQUIRE(p.axes.known());
  Topology topology(hw, p.world_size);
  const ProgramIndex index = index_program(p, hw, topology);
  std::size_t checked = 0;
  for (const IndexedChannel& c : index.channels) {
    if (c.send_ops.empty()) continue;
    const program::RankProgram& sender = p.ranks[static_cast<std::size_t>(c.sender)];
    for (const program::OpIndex op : c.send_ops) {
      const auto& send = std::get<program::Send>(sender.ops[static_cast<std::size_t>(op)].payload);
      for (const program::Rank image : index.represented_by(c.sender)) {
        const program::Rank offset = send.peer + (image - sender.rank);
        if (offset < 0 || offset >= p.world_size ||
            index.representative[static_cast<std::size_t>(offset)] != c.receiver) {
          continue;
        }
        CHECK(p.axes.translate(send.peer, sender.rank, image) == offset);
        ++checked;
      }
    }
  }
  CHECK(checked > 0);
}

}  // namespace

TEST_CASE(
    "RankAxes::translate keeps every send image of pipelines, grids, cubes and each CP rank") {
  const hw::HardwareProfile hw = four_per_node();
  struct Kind {
    TensorKind kind;
    std::int64_t size, depth, cp, micro;
    PipelineSchedule schedule;
  };
  for (const Kind k : {Kind{TensorKind::one_d, 2, 1, 2, 1, PipelineSchedule::interleaved},
                       Kind{TensorKind::two_d, 4, 1, 1, 2, PipelineSchedule::one_f_one_b},
                       Kind{TensorKind::two_d, 4, 1, 1, 2, PipelineSchedule::interleaved},
                       Kind{TensorKind::two_and_half_d, 8, 2, 1, 4, PipelineSchedule::gpipe},
                       Kind{TensorKind::three_d, 8, 1, 1, 4, PipelineSchedule::one_f_one_b}}) {
    CAPTURE(to_string(k.kind));
    CAPTURE(to_string(k.schedule));
    ModelSpec model = k.cp > 1 ? ring_model() : test::small_model(4);
    ParallelPlan plan = test::plan_of(k.size, k.cp, 2, 2, 1);
    plan.tensor.sequence_parallel = false;
    plan.tensor.kind = k.kind;
    plan.tensor.depth = k.depth;
    plan.tensor.grid_order = default_grid_order(k.kind);
    plan.pipeline.schedule = k.schedule;
    if (k.schedule == PipelineSchedule::interleaved) plan.pipeline.chunks = 2;
    TrainingSpec training;
    training.micro_batch = k.micro;
    training.global_batch = 8 * k.micro;
    check_offsets_kept(build_program(model, plan, training, ProgramScope::representative), hw);
  }
}

TEST_CASE("CP rank 0 stands for its ring: the replay of each CP rank recorded, and of every rank") {
  const ModelSpec model = ring_model();
  // On 4-GPU nodes: TP 4 puts each CP rank on a node of its own (every hop leaves the node),
  // also with an interleaved pipeline (its last stage sends to the first) and recomputation;
  // TP 1 × CP 4 and TP 2 × CP 2 keep each ring inside one node. On 2-GPU nodes TP 4 spans two
  // nodes per CP rank.
  struct Sized {
    Case c;
    std::int64_t gpus_per_node;
  };
  for (const auto& [c, gpus_per_node] :
       {Sized{{4, 2, 1, 2, 1}, 4}, Sized{{4, 2, 2, 1, 0}, 4}, Sized{{4, 2, 2, 1, 1, 2, true}, 4},
        Sized{{1, 4, 2, 2, 1}, 4}, Sized{{2, 2, 2, 2, 3}, 4}, Sized{{1, 2, 1, 4, 1}, 4},
        Sized{{4, 2, 2, 2, 1}, 2}}) {
    CAPTURE(c.tp);
    CAPTURE(c.cp);
    CAPTURE(c.pp);
    CAPTURE(c.dp);
    CAPTURE(c.chunks);
    CAPTURE(gpus_per_node);
    hw::HardwareProfile hw = four_per_node();
    hw.node.gpus = gpus_per_node;
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
      const auto cp = static_cast<std::size_t>(program::GroupKind::cp);
      CHECK(by_ring.breakdown[i].exposed_comm[cp].seconds() ==
            doctest::Approx(by_each.breakdown[j].exposed_comm[cp].seconds()).epsilon(1e-6));
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

TEST_CASE("CP ranks are each recorded where the ring's hops differ, a window, or experts") {
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
  // A MoE layer's experts follow the CP rank (its place in the expert-parallel group).
  model = ring_model();
  model.activation = Activation::swiglu;
  model.bias = false;
  model.moe = MoeSpec{4, 2, 256, 0, 1, std::nullopt};
  ParallelPlan plan = plan_of(c);
  plan.expert.size = 2;
  const program::Program experts =
      build_program(model, plan, batches_of(c), ProgramScope::representative, 4);
  CHECK(experts.gpus_per_node == 0);
  CHECK(experts.ranks.size() == 2);
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
