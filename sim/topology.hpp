#pragma once
// The cluster as a directed graph (Boost.Graph): GPUs, one fabric per node (an NVSwitch, or
// a PCIe root whose host bridge every GPU-to-GPU transfer crosses), NICs (GPU i of a node
// uses NIC i mod nics_per_node) and one core switch whose capacity is the sum of the NIC
// uplinks divided by the oversubscription (a capacity-limited link only when oversubscribed:
// otherwise it can never be the bottleneck). Every physical link is one directed edge per
// direction with a capacity; routes between GPUs are the graph's shortest paths, read off the
// structure (each pair has exactly one) and cached. The graph is kept as plain vertex and edge
// lists, named on demand: a replay over 16 384 GPUs builds one per run, and formatting every
// link's name and adding it to a Boost graph was ~10 % of a reduced replay there; Boost.Graph
// holds it only for the breadth-first search the structural routes are tested against.

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/flow_network.hpp"
#include "sim/hardware_profile.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

class Topology {
 public:
  /// Builds the graph for `gpu_count` GPUs (>= 1) filling ceil(gpu_count / gpus per node)
  /// nodes. Throws std::invalid_argument on a non-positive count or bandwidth.
  Topology(const hw::HardwareProfile& hw, std::int32_t gpu_count);
  ~Topology();
  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;

  std::int32_t gpu_count() const { return gpu_count_; }
  std::int32_t node_count() const { return node_count_; }
  /// Node holding GPU `gpu` (GPU index = rank; rank r sits in node r / gpus_per_node).
  std::int32_t node_of(std::int32_t gpu) const { return gpu / gpus_per_node_; }

  /// Links that limit bandwidth, indexed by LinkId, in bytes/s (for FlowNetwork).
  const std::vector<double>& link_capacities() const { return capacity_; }
  std::size_t link_count() const { return capacity_.size(); }
  /// The smallest link capacity, bytes/s (infinity without links).
  double min_capacity() const { return min_capacity_; }
  /// "gpu3->nvswitch0" and the like, for diagnostics (made on demand: a replay over 16 384
  /// GPUs names none of its ~65 000 links).
  std::string link_name(LinkId l) const;

  /// Capacity-limited links on a shortest path from GPU `from` to GPU `to`; empty when they
  /// are the same GPU. The span stays valid for the topology's lifetime.
  std::span<const LinkId> route(std::int32_t from, std::int32_t to);

  /// A route by value: at most three limited links (fabric up, PCIe bridge, fabric down; or
  /// NIC up, core, NIC down).
  struct Links {
    std::array<LinkId, 3> ids{};
    std::uint8_t count = 0;
    /// Iterated directly: `for (LinkId l : topology.route_links(a, b))` keeps the value alive
    /// for the loop, where a span of the temporary would dangle (C++20 extends only the
    /// range expression's own lifetime).
    const LinkId* begin() const { return ids.data(); }
    const LinkId* end() const { return ids.data() + count; }
  };
  /// What `route` gives, worked out from the structure at each call: for loops over many
  /// pairs each visited once (a traffic tally, NCCL's algorithm choice over a group of
  /// thousands), where the cache's hashing cost more than the structure (28 % of a plan on
  /// 16 384 GPUs). Throws std::out_of_range as `route` does.
  Links route_links(std::int32_t from, std::int32_t to) const;
  /// Per limited link, the link in the same place of node `node_image[n]` (n: the link's
  /// node; the core maps to itself): where a permutation of the nodes takes each link. Every
  /// node is wired alike to one core, so any permutation of whole nodes is a symmetry of the
  /// network (sim/node_fold.hpp). Throws std::invalid_argument unless `node_image` has one
  /// entry per node, each a node, and every node is full.
  std::vector<LinkId> link_images(std::span<const std::int32_t> node_image) const;
  /// Smallest capacity along a route in bytes/s; infinity for an empty route.
  double bottleneck(std::span<const LinkId> route) const;
  /// The capacity-limited links of a breadth-first shortest path in the graph from `from` to
  /// `to`: what `route` gives, found by search instead of from the structure. Kept as the
  /// definition `route` is checked against (tests); a search per source was ~3 % of a
  /// 3072-GPU replay.
  std::vector<LinkId> searched_route(std::int32_t from, std::int32_t to) const;

 private:
  /// A vertex of the graph, named on demand (vertex_name).
  struct Vertex {
    enum class Kind : std::uint8_t {
      gpu,
      nvswitch,
      pcie_in,
      pcie_out,
      core_in,
      core_out,
      nic_tx,
      nic_rx
    };
    Kind kind = Kind::gpu;
    std::int32_t node = 0;   ///< GPU index for a GPU
    std::int32_t index = 0;  ///< NIC index within the node
  };
  /// A directed edge: `link` >= 0 for a capacity-limited one, -1 for a hop that never limits.
  struct Edge {
    std::int32_t from = 0;
    std::int32_t to = 0;
    LinkId link = -1;
  };
  std::string vertex_name(std::int32_t v) const;

  std::int32_t gpu_count_ = 0;
  std::int32_t gpus_per_node_ = 1;
  std::int32_t node_count_ = 0;
  /// The graph, in Boost.Graph's terms made only by searched_route (the definition `route`
  /// is checked against); vertices in insertion order, edges in each vertex's out-edge order.
  std::vector<Vertex> vertices_;
  std::vector<Edge> edges_;
  std::vector<double> capacity_;
  std::vector<std::int32_t> link_edge_;  ///< per link, its edge
  double min_capacity_ = std::numeric_limits<double>::infinity();
  std::int32_t nics_per_node_ = 1;
  // The limited links each structural route is made of (-1: unlimited, not on routes).
  std::vector<LinkId> gpu_up_;    ///< per GPU: into its fabric (NVSwitch, or PCIe root)
  std::vector<LinkId> gpu_down_;  ///< per GPU: out of its fabric
  std::vector<LinkId> bridge_;    ///< per node: the PCIe host bridge (-1 on NVSwitch)
  std::vector<LinkId> nic_up_;    ///< per (node, NIC): transmit side into the core
  std::vector<LinkId> nic_down_;  ///< per (node, NIC): core out to the receive side
  LinkId core_ = -1;              ///< the oversubscribed core
  std::unordered_map<std::uint64_t, std::vector<LinkId>> routes_;
};

}  // namespace trainsim::sim
