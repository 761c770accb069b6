// The busiest link's floor on a layout's iteration (sim/link_traffic, sim/analysis/
// traffic_floor): the bytes a Program puts on each link, by hand on small Programs, and the
// floor against full replays of every layout of a small two-node space.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "models/build_program.hpp"
#include "sim/analysis/layout_search.hpp"
#include "sim/analysis/traffic_floor.hpp"
#include "sim/link_traffic.hpp"
#include "sim/program_index.hpp"
#include "sim_fixtures.hpp"

namespace trainsim::sim {
namespace {

using test::ProgramBuilder;

double on(const LinkTraffic& t, std::span<const LinkId> route) {
  double least = t.bytes[static_cast<std::size_t>(route.front())];
  for (const LinkId l : route)
    least = std::min(least, t.bytes[static_cast<std::size_t>(l)]);
  return least;
}

TEST_CASE("link_traffic: a ring all-gather across two nodes and sends inside one, by hand") {
  // 8 GPUs, 4 per node: GPUs 0 and 4 gather three times (1000, 1000, 500 bytes): each sends
  // (n − 1)/n of 2500 bytes to the other; GPU 0 sends GPU 1 300 bytes twice.
  const hw::HardwareProfile hw = test::small_profile();
  ProgramBuilder b(8);
  const program::GroupId g = b.group(program::GroupKind::dp, {0, 4}, 0);
  for (const std::int64_t size : {1000, 1000, 500}) {
    for (const std::size_t r : {0u, 4u}) {
      b.add(
          r,
          program::Collective{program::CollectiveKind::all_gather, g, Bytes::of(size), DType::bf16},
          program::Stream::dp);
    }
  }
  for (int k = 0; k < 2; ++k) {
    b.add(0, program::Send{1, Bytes::of(300)}, program::Stream::dp);
    b.add(1, program::Recv{0, Bytes::of(300)}, program::Stream::dp);
  }
  Topology topology(hw, 8);
  const LinkTraffic t = link_traffic(b.program(), hw, topology);
  REQUIRE(t.bytes.size() == topology.link_count());
  const std::span<const LinkId> across = topology.route(0, 4);
  const std::span<const LinkId> back = topology.route(4, 0);
  const std::span<const LinkId> inside = topology.route(0, 1);
  CHECK(on(t, across) == 1250.0);
  CHECK(on(t, back) == 1250.0);
  CHECK(on(t, inside) == 600.0);
  double total = 0.0;
  for (const double bytes : t.bytes)
    total += bytes;
  CHECK(total == 1250.0 * static_cast<double>(across.size() + back.size()) +
                     600.0 * static_cast<double>(inside.size()));
  CHECK(t.capacities == topology.link_capacities());
  Topology wrong(hw, 4);
  CHECK_THROWS_AS(link_traffic(b.program(), hw, wrong), std::invalid_argument);
}

TEST_CASE(
    "index_program for traffic: the replay's groups and channels, no durations or dependents") {
  const hw::HardwareProfile hw = test::small_profile();
  ProgramBuilder b(8);
  const program::GroupId g = b.group(program::GroupKind::dp, {0, 4}, 0);
  for (const std::size_t r : {0u, 4u}) {
    const program::OpIndex mm = b.add(r, test::gemm(256, 256, 256));
    b.add(r,
          program::Collective{program::CollectiveKind::all_gather, g, Bytes::of(1000), DType::bf16},
          program::Stream::dp, {mm});
  }
  b.add(0, program::Send{1, Bytes::of(300)}, program::Stream::dp);
  b.add(1, program::Recv{0, Bytes::of(300)}, program::Stream::dp);
  const program::Program p = b.program();
  Topology topology(hw, 8);
  const ProgramIndex replay = index_program(p, hw, topology);
  const ProgramIndex traffic = index_program(p, hw, topology, IndexUse::traffic);
  REQUIRE(traffic.groups.size() == replay.groups.size());
  for (std::size_t i = 0; i < replay.groups.size(); ++i) {
    CHECK(traffic.groups[i].gpus == replay.groups[i].gpus);
    CHECK(traffic.groups[i].launches == replay.groups[i].launches);
    CHECK(traffic.groups[i].calls.size() == replay.groups[i].calls.size());
  }
  REQUIRE(traffic.channels.size() == 1);
  CHECK(traffic.channels[0].send_ops == replay.channels[0].send_ops);
  CHECK(traffic.channels[0].recv_ops == replay.channels[0].recv_ops);
  CHECK(replay.ranks[0].info(0).value > 0);  // the GEMM's duration (ps)
  CHECK(traffic.ranks[0].info(0).value == 0);
  CHECK(replay.ranks[0].dependents_of(replay.ranks[0].slot_of[0]).size() == 1);
  CHECK(traffic.ranks[0].dependents.empty());
  CHECK(traffic.ranks[0].dependents_begin.empty());
  // Validated all the same: a dependency on an op that does not exist.
  program::Program bad = p;
  bad.ranks[0].dep_pool[0] = 99;
  CHECK_THROWS_AS(index_program(bad, hw, topology, IndexUse::traffic), InvalidProgram);
}

TEST_CASE("TrafficFloor: never above the full replay of any layout on two nodes") {
  // Every layout of a 4-layer model on 16 GPUs (two nodes of 8, a NIC per GPU) at batch 16:
  // the busiest link's floor is a lower bound of the replayed iteration, tight where the
  // communication dominates (ZeRO-3 gathers and tensor groups crossing the nodes).
  const ModelSpec model = test::small_model(4);
  const hw::HardwareProfile hw = test::rail_profile();
  constexpr std::int64_t kGpus = 16;
  constexpr std::int64_t kBatch = 16;
  LayoutSpaceOptions space;
  space.max_micro_batch = 2;
  std::map<std::string, TrafficFloor> floors;
  double tightest = 0.0;
  std::string tightest_layout;
  std::size_t layouts = 0;
  for (const Layout& l : enumerate_layouts(model, kGpus, kBatch, space)) {
    const Layout reduced = reduced_layout(l);
    auto it = floors.find(describe(reduced));
    if (it == floors.end())
      it = floors.emplace(describe(reduced), TrafficFloor(model, reduced, hw)).first;
    const double floor = it->second.floor(model, l, kBatch).seconds();
    const double replayed = replay_layout(model, hw, l, kBatch).iteration.seconds();
    INFO(describe(l));
    CHECK(floor <= replayed);
    if (floor / replayed > tightest) {
      tightest = floor / replayed;
      tightest_layout = describe(l);
    }
    ++layouts;
  }
  std::printf("traffic floor vs replay, %zu layouts on 16 GPUs: tightest %.2f (%s)\n", layouts,
              tightest, tightest_layout.c_str());
  CHECK(layouts > 100);
  CHECK(tightest > 0.5);
}

}  // namespace
}  // namespace trainsim::sim
