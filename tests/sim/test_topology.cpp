#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/topology.hpp"
#include "sim_fixtures.hpp"

using namespace trainsim;
using namespace trainsim::sim;

namespace {

/// Every pair's route, read off the structure, against the graph's breadth-first search.
void check_every_pair(const hw::HardwareProfile& hw, std::int32_t gpus) {
  Topology topo(hw, gpus);
  for (std::int32_t from = 0; from < gpus; ++from) {
    for (std::int32_t to = 0; to < gpus; ++to) {
      INFO("gpu" << from << " -> gpu" << to);
      const auto got = topo.route(from, to);
      const std::vector<LinkId> want = topo.searched_route(from, to);
      CHECK(std::vector<LinkId>(got.begin(), got.end()) == want);
    }
  }
}

}  // namespace

TEST_CASE("routes from the structure equal the graph's shortest paths") {
  auto hw = test::small_profile();
  SUBCASE("NVSwitch, one NIC, a partial last node") {
    check_every_pair(hw, 11);
  }
  SUBCASE("NVSwitch, NICs shared by several GPUs, oversubscribed core") {
    hw.node.gpus = 8;
    hw.network.nics_per_node = 3;
    hw.network.oversubscription = 2.0;
    check_every_pair(hw, 21);
  }
  SUBCASE("more NICs than GPUs") {
    hw.network.nics_per_node = 6;
    check_every_pair(hw, 9);
  }
  SUBCASE("PCIe with a limited host bridge") {
    hw.node.fabric = hw::FabricKind::pcie;
    hw.node.host_bridge_bandwidth = Bandwidth::gb_per_s(50);
    hw.network.nics_per_node = 2;
    check_every_pair(hw, 10);
  }
  SUBCASE("PCIe, unlimited bridge, one node") {
    hw.node.fabric = hw::FabricKind::pcie;
    check_every_pair(hw, 4);
  }
  SUBCASE("one GPU") {
    check_every_pair(hw, 1);
  }
}

TEST_CASE("routes: a cross-node route is the sender's NIC, the core when limited, the peer's NIC") {
  auto hw = test::small_profile();
  hw.node.gpus = 4;
  hw.network.nics_per_node = 2;
  hw.network.oversubscription = 4.0;
  Topology topo(hw, 12);
  const auto r = topo.route(5, 11);  // GPU 1 of node 1 (NIC 1) to GPU 3 of node 2 (NIC 1)
  REQUIRE(r.size() == 3);
  CHECK(topo.link_name(r[0]) == "nic1.1.tx->core.in");
  CHECK(topo.link_name(r[1]) == "core.in->core.out");
  CHECK(topo.link_name(r[2]) == "core.out->nic2.1.rx");
  CHECK_THROWS_AS(topo.route(0, 12), std::out_of_range);
}
