#pragma once
// The cluster as a directed graph (Boost.Graph): GPUs, one fabric per node (an NVSwitch, or
// a PCIe root whose host bridge every GPU-to-GPU transfer crosses), NICs (GPU i of a node
// uses NIC i mod nics_per_node) and one core switch whose capacity is the sum of the NIC
// uplinks divided by the oversubscription (a capacity-limited link only when oversubscribed:
// otherwise it can never be the bottleneck). Every physical link is one directed edge per
// direction with a capacity; routes between GPUs are shortest paths, cached.

#include <cstdint>
#include <memory>
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
  /// "gpu3->nvswitch0" and the like, for diagnostics.
  const std::string& link_name(LinkId l) const { return link_name_[static_cast<std::size_t>(l)]; }

  /// Capacity-limited links on a shortest path from GPU `from` to GPU `to`; empty when they
  /// are the same GPU. The span stays valid for the topology's lifetime.
  std::span<const LinkId> route(std::int32_t from, std::int32_t to);
  /// Smallest capacity along a route in bytes/s; infinity for an empty route.
  double bottleneck(std::span<const LinkId> route) const;

 private:
  struct Graph;  ///< the boost::adjacency_list, defined in topology.cpp
  /// Extends the breadth-first tree from GPU `from` until it reaches vertex `to` (or every
  /// vertex), starting afresh when `from` is not the tree's source.
  void search_until(std::int32_t from, std::int32_t to);

  std::int32_t gpu_count_ = 0;
  std::int32_t gpus_per_node_ = 1;
  std::int32_t node_count_ = 0;
  std::unique_ptr<Graph> graph_;
  std::vector<double> capacity_;
  std::vector<std::string> link_name_;
  /// BFS tree of the most recent source only: a per-source table would cost
  /// O(GPUs x vertices) memory on thousands of GPUs, and callers query routes source by source.
  std::int32_t tree_source_ = -1;
  std::vector<std::int32_t> predecessor_;  ///< -1: not reached yet
  std::vector<LinkId> tree_link_;          ///< the tree edge's link into each vertex, or -1
  std::vector<std::int32_t> frontier_;     ///< the search's queue; [frontier_head_, end) open
  std::size_t frontier_head_ = 0;
  std::unordered_map<std::uint64_t, std::vector<LinkId>> routes_;
};

}  // namespace trainsim::sim
