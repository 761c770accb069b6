#include <doctest/doctest.h>

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
  REQUIRE(inter.size() == 3);
  CHECK(topo.link_name(inter[0]) == "nic0.0.tx->core.in");
  CHECK(topo.bottleneck(inter) == doctest::Approx(10e9));
  CHECK(topo.route(2, 2).empty());
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
  // Each member sends S/n to each of 3 peers over its one 100 GB/s uplink: 3 flows share
  // it (33.3 GB/s each, below the 80 GB/s cap), so (n-1)/n S / B.
  check_close(estimate_collective(CollectiveKind::all_to_all, s, gpus, topo, hw),
              Bytes::of(48'000'000) / Bandwidth::gb_per_s(100) + Time::from_us(2 + 3));
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
  CHECK(collective_latency(CollectiveKind::all_reduce, 8, 2, hw) ==
        Time::from_us(2 + 12 * 1 + 2 * 5));
  CHECK(collective_latency(CollectiveKind::all_gather, 8, 2, hw) ==
        Time::from_us(2 + 6 * 1 + 1 * 5));
  CHECK(collective_latency(CollectiveKind::all_reduce, 1, 1, hw) == Time::zero());
  CHECK(p2p_latency(true, hw) == Time::from_us(7));
}

TEST_CASE("an oversubscribed core halves what crosses it") {
  auto hw = test::small_profile();
  hw.node.gpus = 1;
  hw.network.oversubscription = 2.0;  // core: 2 NICs x 10 GB/s / 2 = 10 GB/s for both flows
  Topology topo(hw, 2);
  const std::vector<std::int32_t> gpus{0, 1};
  const Bytes s = Bytes::of(10'000'000);
  check_close(estimate_collective(CollectiveKind::all_reduce, s, gpus, topo, hw),
              s / Bandwidth::gb_per_s(5) + Time::from_us(2 + 2 * 5));
}
