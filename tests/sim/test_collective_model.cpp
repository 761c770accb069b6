#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "sim/collective_model.hpp"
#include "sim/topology.hpp"
#include "sim_fixtures.hpp"
#include "units/doctest_printers.hpp"

using namespace trainsim;
using namespace trainsim::sim;
using program::CollectiveKind;

namespace {
void check_close(Time got, Time want, std::int64_t tolerance_ps = 2) {
  INFO("got " << got.ps() << " ps, want " << want.ps() << " ps");
  CHECK(std::llabs(got.ps() - want.ps()) <= tolerance_ps);
}
}  // namespace

TEST_CASE("routes: NVSwitch inside a node, NICs and the core across nodes") {
  auto hw = test::small_profile();
  Topology topo(hw, 8);
  CHECK(topo.node_count() == 2);
  const auto intra = topo.route(0, 3);
  REQUIRE(intra.size() == 2);
  CHECK(topo.link_name(intra[0]) == "gpu0->nvswitch0");
  CHECK(topo.link_name(intra[1]) == "nvswitch0->gpu3");
  const auto inter = topo.route(1, 5);
  // Without oversubscription the core cannot fill before the NIC uplinks feeding it, so it
  // is not a capacity-limited link of the route.
  REQUIRE(inter.size() == 2);
  CHECK(topo.link_name(inter[0]) == "nic0.0.tx->core.in");
  CHECK(topo.link_name(inter[1]) == "core.out->nic1.0.rx");
  CHECK(topo.bottleneck(inter) == doctest::Approx(10e9));
  CHECK(topo.route(2, 2).empty());
  hw.network.oversubscription = 2.0;
  Topology oversubscribed(hw, 8);
  const auto through_core = oversubscribed.route(1, 5);
  REQUIRE(through_core.size() == 3);
  CHECK(oversubscribed.link_name(through_core[1]) == "core.in->core.out");
}

TEST_CASE("PCIe: every GPU-to-GPU transfer crosses the shared host bridge") {
  auto hw = test::small_profile();
  hw.node.fabric = hw::FabricKind::pcie;
  hw.node.host_bridge_bandwidth = Bandwidth::gb_per_s(50);
  Topology topo(hw, 4);
  const auto r = topo.route(0, 1);
  REQUIRE(r.size() == 3);
  CHECK(topo.link_name(r[1]) == "pcie0.in->pcie0.out");
  CHECK(topo.bottleneck(r) == doctest::Approx(50e9));
}

TEST_CASE("golden: ring all-reduce inside one node") {
  const auto hw = test::small_profile();
  Topology topo(hw, 4);
  const std::vector<std::int32_t> gpus{0, 1, 2, 3};
  const Bytes s = Bytes::of(64'000'000);
  const Time t = estimate_collective(CollectiveKind::all_reduce, s, gpus, topo, hw);
  // 2(n-1)/n S / (B eff) + base + 2(n-1) intra hops.
  const Time want =
      Bytes::of(96'000'000) / Bandwidth::gb_per_s(80) + Time::from_us(2) + Time::from_us(1) * 6;
  check_close(t, want);
}

TEST_CASE("golden: all-gather, broadcast, all-to-all inside one node") {
  const auto hw = test::small_profile();
  Topology topo(hw, 4);
  const std::vector<std::int32_t> gpus{0, 1, 2, 3};
  const Bytes s = Bytes::of(64'000'000);
  check_close(estimate_collective(CollectiveKind::all_gather, s, gpus, topo, hw),
              Bytes::of(48'000'000) / Bandwidth::gb_per_s(80) + Time::from_us(2 + 3));
  check_close(estimate_collective(CollectiveKind::broadcast, s, gpus, topo, hw),
              s / Bandwidth::gb_per_s(80) + Time::from_us(2 + 3));
  // Each member sends S/n to each of 3 peers over its one 100 GB/s uplink: 3 flows of
  // S/n / 0.8 wire bytes share it, so (n-1)/n S / (0.8 B).
  check_close(estimate_collective(CollectiveKind::all_to_all, s, gpus, topo, hw),
              Bytes::of(48'000'000) / Bandwidth::gb_per_s(80) + Time::from_us(2 + 3));
}

TEST_CASE("golden: sendrecv (one ring step) moves S per member at the p2p bandwidth share") {
  auto hw = test::small_profile();
  Topology topo(hw, 4);
  const std::vector<std::int32_t> gpus{0, 1, 2, 3};
  const Bytes s = Bytes::of(64'000'000);
  // Without a p2p curve: the collective curve (0.8); one step: base + one intra hop.
  check_close(estimate_collective(CollectiveKind::sendrecv, s, gpus, topo, hw),
              s / Bandwidth::gb_per_s(80) + Time::from_us(2 + 1));
  // With one: its share, not the collective's.
  hw.collectives.p2p.intra_node_efficiency = hw::EfficiencyCurve::constant(0.5);
  check_close(estimate_collective(CollectiveKind::sendrecv, s, gpus, topo, hw),
              s / Bandwidth::gb_per_s(50) + Time::from_us(2 + 1));
  check_close(estimate_collective(CollectiveKind::all_gather, s, gpus, topo, hw),
              Bytes::of(48'000'000) / Bandwidth::gb_per_s(80) + Time::from_us(2 + 3));
}

TEST_CASE("golden: an all-reduce across two nodes is limited by the NIC") {
  auto hw = test::small_profile();
  hw.node.gpus = 1;
  Topology topo(hw, 2);
  const std::vector<std::int32_t> gpus{0, 1};
  const Bytes s = Bytes::of(10'000'000);
  // n = 2: per-link volume S; NIC 10 GB/s x 0.8; 2 steps, both inter-node.
  check_close(estimate_collective(CollectiveKind::all_reduce, s, gpus, topo, hw),
              s / Bandwidth::gb_per_s(8) + Time::from_us(2 + 2 * 5));
}

TEST_CASE("latency model counts steps per tier") {
  const auto hw = test::small_profile();
  // All-reduce over 2 nodes of 4: the ring's 2 + 12·1 + 2·5 = 24 us, the tree's
  // 2 + 2·(3·1 + 1·5) = 18 us.
  CHECK(ring_latency(CollectiveKind::all_reduce, 8, 2, hw) == Time::from_us(24));
  CHECK(tree_latency(8, 2, hw) == Time::from_us(18));
  CHECK(collective_latency(CollectiveKind::all_reduce, 8, 2, CollectiveAlgorithm::tree, hw) ==
        Time::from_us(18));
  // 64 nodes of 8: ring 2 + (1022 − 126)·1 + 126·5 = 1528 us; tree 2 + 2·(7·1 + 6·5) = 76 us.
  CHECK(ring_latency(CollectiveKind::all_reduce, 512, 64, hw) == Time::from_us(1528));
  CHECK(tree_latency(512, 64, hw) == Time::from_us(76));
  // One GPU on each of 2 nodes: ring 2 + 2·5 = 12; tree 2 + 2·5 = 12.
  CHECK(ring_latency(CollectiveKind::all_reduce, 2, 2, hw) == Time::from_us(12));
  CHECK(tree_latency(2, 2, hw) == Time::from_us(12));
  CHECK(ring_latency(CollectiveKind::all_reduce, 4, 1, hw) == Time::from_us(2 + 6 * 1));
  CHECK(ring_latency(CollectiveKind::all_gather, 8, 2, hw) == Time::from_us(2 + 6 * 1 + 1 * 5));
  CHECK(collective_latency(CollectiveKind::all_reduce, 1, 1, CollectiveAlgorithm::ring, hw) ==
        Time::zero());
  CHECK(p2p_latency(true, hw) == Time::from_us(7));
}

TEST_CASE("NCCL's double binary tree: two spanning trees, each node inner in at most one") {
  // NCCL's own 4-node trees (ncclGetDtree): tree 0 is 0 <- 2 <- {1, 3}; tree 1 mirrors it.
  CHECK(std::vector<std::int32_t>{double_tree_parent(0, 4, 0), double_tree_parent(1, 4, 0),
                                  double_tree_parent(2, 4, 0), double_tree_parent(3, 4, 0)} ==
        std::vector<std::int32_t>{-1, 2, 0, 2});
  CHECK(std::vector<std::int32_t>{double_tree_parent(0, 4, 1), double_tree_parent(1, 4, 1),
                                  double_tree_parent(2, 4, 1), double_tree_parent(3, 4, 1)} ==
        std::vector<std::int32_t>{1, 3, 1, -1});
  for (std::int32_t nodes = 2; nodes <= 70; ++nodes) {
    std::vector<int> children_both(static_cast<std::size_t>(nodes), 0);
    for (int t = 0; t < 2; ++t) {
      INFO("nodes " << nodes << " tree " << t);
      std::vector<int> children(static_cast<std::size_t>(nodes), 0);
      int roots = 0;
      for (std::int32_t r = 0; r < nodes; ++r) {
        const std::int32_t p = double_tree_parent(r, nodes, t);
        if (p < 0) {
          ++roots;
          continue;
        }
        REQUIRE(p < nodes);
        ++children[static_cast<std::size_t>(p)];
        ++children_both[static_cast<std::size_t>(p)];
        // Every node reaches the root within log2 steps (no cycle).
        std::int32_t up = r;
        int steps = 0;
        while (up >= 0 && steps <= nodes) {
          up = double_tree_parent(up, nodes, t);
          ++steps;
        }
        CHECK(up < 0);
      }
      CHECK(roots == 1);
      CHECK(*std::max_element(children.begin(), children.end()) <= 2);
    }
    // What makes the pair worth two: no node forwards for more than three children in both
    // trees together, so each moves about the same (2S per node at scale, as a ring).
    CHECK(*std::max_element(children_both.begin(), children_both.end()) <= 3);
  }
}

TEST_CASE("NCCL's choice: tree on two full nodes, ring inside a node and on a tie") {
  auto hw = test::rail_profile();  // 8 GPUs per node at 100 GB/s, 8 NICs of 10 GB/s
  Topology topo(hw, 16);
  std::vector<std::int32_t> all(16);
  for (std::int32_t i = 0; i < 16; ++i)
    all[static_cast<std::size_t>(i)] = i;
  const CollectiveRings rings = collective_rings(all, topo, hw.network.nics_per_node);
  const Bytes large = Bytes::of(64'000'000);
  // Large: the ring puts 2·15/16·S/8 through each NIC (S/42.7 GB/s at full speed); the tree
  // S/8 through each NIC and, in its 8 chains, 14·S/8 out of each GPU (S/57 GB/s): the tree.
  CHECK(choose_algorithm(CollectiveKind::all_reduce, large, all, rings, topo, hw).algorithm ==
        CollectiveAlgorithm::tree);
  // Small: latency decides, the tree's 2 + 2·(7 + 5) = 26 us against the ring's 40 us.
  const CollectiveChoice small =
      choose_algorithm(CollectiveKind::all_reduce, Bytes::of(8), all, rings, topo, hw);
  CHECK(small.algorithm == CollectiveAlgorithm::tree);
  CHECK(small.latency == Time::from_us(26));
  // Other kinds, and an all-reduce inside one node: the ring.
  CHECK(choose_algorithm(CollectiveKind::all_gather, large, all, rings, topo, hw).algorithm ==
        CollectiveAlgorithm::ring);
  const std::vector<std::int32_t> node0{0, 1, 2, 3, 4, 5, 6, 7};
  CHECK(choose_algorithm(CollectiveKind::all_reduce, large, node0, collective_rings(node0, topo, 8),
                         topo, hw)
            .algorithm == CollectiveAlgorithm::ring);
  // One GPU on each of two nodes: both move S each way and pay 12 us: the ring on the tie.
  const std::vector<std::int32_t> pair{0, 8};
  CHECK(choose_algorithm(CollectiveKind::all_reduce, large, pair, collective_rings(pair, topo, 8),
                         topo, hw)
            .algorithm == CollectiveAlgorithm::ring);
  // A profile that allows only rings (NCCL_ALGO=Ring) gets the ring.
  hw.collectives.algorithms = {true, false};
  CHECK(choose_algorithm(CollectiveKind::all_reduce, large, all, rings, topo, hw).algorithm ==
        CollectiveAlgorithm::ring);
}

TEST_CASE("an oversubscribed core halves what crosses it") {
  auto hw = test::small_profile();
  hw.node.gpus = 1;
  hw.network.oversubscription = 2.0;  // core: 2 NICs x 10 GB/s / 2 = 10 GB/s for both flows
  Topology topo(hw, 2);
  const std::vector<std::int32_t> gpus{0, 1};
  const Bytes s = Bytes::of(10'000'000);
  // 5 GB/s of wire each, of which 80 % is useful.
  check_close(estimate_collective(CollectiveKind::all_reduce, s, gpus, topo, hw),
              s / Bandwidth::gb_per_s(4) + Time::from_us(2 + 2 * 5));
}

TEST_CASE("multi-node rings: one channel per NIC, each leaving a node through its own NIC") {
  const auto hw = test::rail_profile();
  Topology topo(hw, 16);
  std::vector<std::int32_t> all(16);
  for (std::int32_t i = 0; i < 16; ++i)
    all[static_cast<std::size_t>(i)] = i;
  const CollectiveRings rings = collective_rings(all, topo, hw.network.nics_per_node);
  REQUIRE(rings.channels == 8);
  for (std::int32_t c = 0; c < rings.channels; ++c) {
    const auto ring = rings.ring(c);
    REQUIRE(ring.size() == 16);
    CHECK(ring[0] == 0);  // every ring starts at the group's first member
    // Exactly two hops cross nodes: node 0's member c sends to node 1's member c+1, and
    // node 1's member c to node 0's member c+1.
    int crossings = 0;
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const std::int32_t from = ring[i];
      const std::int32_t to = ring[(i + 1) % ring.size()];
      if (topo.node_of(from) == topo.node_of(to)) continue;
      ++crossings;
      CHECK(from % 8 == c);
      CHECK(to % 8 == (c + 1) % 8);
    }
    CHECK(crossings == 2);
  }
  // One member per node: that GPU's own NIC only (no PXN). One node: a single ring, as given.
  CHECK(collective_rings(std::vector<std::int32_t>{0, 8}, topo, 8).channels == 1);
  const std::vector<std::int32_t> node0{3, 1, 2, 0};
  const CollectiveRings one = collective_rings(node0, topo, 8);
  CHECK(one.channels == 1);
  CHECK(std::vector<std::int32_t>(one.order.begin(), one.order.end()) == node0);
  // Fewer NICs than members: one ring per NIC.
  auto four_nics = test::rail_profile();
  four_nics.network.nics_per_node = 4;
  Topology topo4(four_nics, 16);
  CHECK(collective_rings(all, topo4, 4).channels == 4);
  // The nodes a group spans come with its rings (choose_algorithm reads them there).
  CHECK(collective_rings(all, topo4, 4).nodes == 2);
  CHECK(one.nodes == 1);
  CHECK(collective_rings(std::vector<std::int32_t>{0, 8}, topo, 8).nodes == 2);
  CHECK(collective_rings(std::vector<std::int32_t>{9}, topo, 8).nodes == 1);
  CHECK(collective_rings(std::vector<std::int32_t>{}, topo, 8).nodes == 0);
  for (const auto& gpus : {all, node0, std::vector<std::int32_t>{15, 0, 14, 1}}) {
    CHECK(collective_rings(gpus, topo, 8).nodes == nodes_spanned(gpus, topo));
  }
}

TEST_CASE("golden: a 2-node all-reduce of full nodes: the tree beats the NICs' bus bandwidth") {
  auto hw = test::rail_profile();
  Topology topo(hw, 16);
  std::vector<std::int32_t> all(16);
  for (std::int32_t i = 0; i < 16; ++i)
    all[static_cast<std::size_t>(i)] = i;
  const Bytes s = Bytes::of(64'000'000);
  const Bytes per_link = Bytes::of(2 * 15 * 64'000'000 / 16);
  // The tree: each GPU heads one chain, ends one and is in the middle of six, so it sends
  // 6·2·S/8 + S/8 + S/8 = 1.75 S over its 100 GB/s NVSwitch uplink at 0.8, the bottleneck
  // (each NIC carries S/8 each way); latency 2 + 2·(7 + 5) = 26 us.
  const CollectiveEstimate tree =
      estimate_collective_parts(CollectiveKind::all_reduce, s, all, topo, hw);
  CHECK(tree.algorithm == CollectiveAlgorithm::tree);
  CHECK(tree.latency == Time::from_us(26));
  check_close(tree.transfer, Bytes::of(112'000'000) / Bandwidth::gb_per_s(80), 10);
  // nccl-tests' bus bandwidth, 2(n-1)/n S / t, is then above what the 8 NICs carry at 0.8
  // (64 GB/s): fidelity-data.md §4.1, on exactly two nodes NCCL's tree shows busbw above
  // the NIC rate.
  CHECK(per_link.as_double() / tree.transfer.seconds() > 64e9 * 1.2);
  // With rings only (NCCL_ALGO=Ring) busbw = 0.8 x 8 NICs x 10 GB/s: each of the 8 rings
  // carries S/8 and its node crossing has a NIC to itself (the NVSwitch uplinks, 7 flows on
  // 100 GB/s, are not the bottleneck).
  hw.collectives.algorithms = {true, false};
  const Time latency = ring_latency(CollectiveKind::all_reduce, 16, 2, hw);
  const Time t = estimate_collective(CollectiveKind::all_reduce, s, all, topo, hw);
  check_close(t, per_link / Bandwidth::gb_per_s(0.8 * 8 * 10) + latency, 10);
  const double busbw = per_link.as_double() / (t - latency).seconds();
  CHECK(busbw == doctest::Approx(64e9).epsilon(1e-6));
  // With one NIC per node the same all-reduce crosses on one ring at 0.8 x 10 GB/s.
  auto one_nic = hw;
  one_nic.network.nics_per_node = 1;
  Topology topo1(one_nic, 16);
  check_close(estimate_collective(CollectiveKind::all_reduce, s, all, topo1, one_nic),
              per_link / Bandwidth::gb_per_s(8) + latency, 10);
}

TEST_CASE("per-group-size curves: the nearest smaller listed size rules, the tier's below") {
  auto hw = test::small_profile();
  hw.node.gpus = 8;
  hw.collectives.intra_node_efficiency_by_group_size = {{4, hw::EfficiencyCurve::constant(0.5)},
                                                        {8, hw::EfficiencyCurve::constant(0.25)}};
  const Bytes s = Bytes::of(64'000'000);
  CHECK(comm_efficiency(s, false, 2, hw) == 0.8);  // below 4: the tier's curve
  CHECK(comm_efficiency(s, false, 4, hw) == 0.5);
  CHECK(comm_efficiency(s, false, 6, hw) == 0.5);  // nearest smaller listed size
  CHECK(comm_efficiency(s, false, 8, hw) == 0.25);
  CHECK(comm_efficiency(s, true, 8, hw) == 0.8);  // the other tier has no per-size curves
  // estimate_collective picks the group's curve: 2(n-1)/n S / (B eff) + base + 6 hops.
  Topology topo(hw, 8);
  const std::vector<std::int32_t> gpus{0, 1, 2, 3};
  check_close(estimate_collective(CollectiveKind::all_reduce, s, gpus, topo, hw),
              Bytes::of(96'000'000) / Bandwidth::gb_per_s(50) + Time::from_us(2 + 6));
}

TEST_CASE("p2p: its own curve and latency where the profile has them, else the collectives'") {
  auto hw = test::small_profile();
  Topology topo(hw, 8);
  const Bytes s = Bytes::of(10'000'000);
  // No p2p figures: the tier's collective curve (0.8) and base latency (2 us) + one hop.
  CHECK(p2p_efficiency(s, false, hw) == 0.8);
  check_close(estimate_p2p(s, 0, 1, topo, hw), s / Bandwidth::gb_per_s(80) + Time::from_us(3));
  check_close(estimate_p2p(s, 0, 4, topo, hw), s / Bandwidth::gb_per_s(8) + Time::from_us(7));
  // Per-group-size collective curves do not apply to transfers.
  hw.collectives.intra_node_efficiency_by_group_size = {{2, hw::EfficiencyCurve::constant(0.1)}};
  CHECK(p2p_efficiency(s, false, hw) == 0.8);
  hw.collectives.p2p.base_latency = Time::from_us(4);
  hw.collectives.p2p.intra_node_efficiency = hw::EfficiencyCurve::constant(0.5);
  CHECK(p2p_latency(false, hw) == Time::from_us(5));
  CHECK(p2p_latency(true, hw) == Time::from_us(9));
  check_close(estimate_p2p(s, 0, 1, topo, hw), s / Bandwidth::gb_per_s(50) + Time::from_us(5));
  // The inter-node tier has no p2p curve: the collective one, with the p2p latency.
  check_close(estimate_p2p(s, 0, 4, topo, hw), s / Bandwidth::gb_per_s(8) + Time::from_us(9));
}

TEST_CASE("all-to-all across nodes: one flow per other node on the member's rail, NIC bytes kept") {
  auto hw = test::small_profile();
  Topology topo(hw, 12);  // three nodes of 4
  const std::vector<std::int32_t> gpus{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  const Bytes s = Bytes::of(12'000);
  std::vector<FlowSpec> flows;
  append_all_to_all_flows(s, gpus, topo, flows);
  // Per member: 3 peers in its node, 1 flow to each of the 2 other nodes.
  CHECK(flows.size() == 12 * (3 + 2));
  // What leaves and enters each GPU across nodes equals the pairwise exchange's: 8 remote
  // peers x S / 12 each way; a cross-node flow lands on the sender's rail.
  std::vector<double> out(12, 0.0);
  std::vector<double> in(12, 0.0);
  for (const FlowSpec& f : flows) {
    if (topo.node_of(f.src) == topo.node_of(f.dst)) {
      CHECK(f.bytes == doctest::Approx(1000.0));
      continue;
    }
    CHECK(f.src % 4 == f.dst % 4);
    out[static_cast<std::size_t>(f.src)] += f.bytes;
    in[static_cast<std::size_t>(f.dst)] += f.bytes;
  }
  for (std::size_t g = 0; g < 12; ++g) {
    CHECK(out[g] == doctest::Approx(8000.0));
    CHECK(in[g] == doctest::Approx(8000.0));
  }
  // Inside one node it stays pairwise.
  flows.clear();
  append_all_to_all_flows(s, std::vector<std::int32_t>{0, 1, 2, 3}, topo, flows);
  CHECK(flows.size() == 4 * 3);
}
