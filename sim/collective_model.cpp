#include "sim/collective_model.hpp"

#include <algorithm>
#include <limits>

#include "sim/flow_network.hpp"

namespace trainsim::sim {

using program::CollectiveKind;

std::int64_t ring_steps(CollectiveKind kind, std::int64_t n) {
  if (n <= 1) return 0;
  if (kind == CollectiveKind::sendrecv) return 1;
  return kind == CollectiveKind::all_reduce ? 2 * (n - 1) : n - 1;
}

Time ring_latency(CollectiveKind kind, std::int64_t members, std::int64_t nodes,
                  const hw::HardwareProfile& hw) {
  if (members <= 1) return Time::zero();
  const std::int64_t steps = ring_steps(kind, members);
  std::int64_t inter = nodes <= 1 ? 0 : (kind == CollectiveKind::all_reduce ? 2 : 1) * (nodes - 1);
  inter = std::min(inter, steps);
  return hw.collectives.base_latency + hw.node.latency * (steps - inter) +
         hw.network.latency * inter;
}

Time tree_latency(std::int64_t members, std::int64_t nodes, const hw::HardwareProfile& hw) {
  const std::int64_t per_node = (members + nodes - 1) / nodes;
  std::int64_t depth = 0;  // ceil(log2(nodes)): the binary tree's height over the nodes
  while ((std::int64_t{1} << depth) < nodes)
    ++depth;
  return hw.collectives.base_latency +
         (hw.node.latency * (per_node - 1) + hw.network.latency * depth) * 2;
}

Time collective_latency(CollectiveKind kind, std::int64_t members, std::int64_t nodes,
                        CollectiveAlgorithm algorithm, const hw::HardwareProfile& hw) {
  if (members <= 1) return Time::zero();
  return algorithm == CollectiveAlgorithm::tree ? tree_latency(members, nodes, hw)
                                                : ring_latency(kind, members, nodes, hw);
}

Time p2p_latency(bool inter_node, const hw::HardwareProfile& hw) {
  return hw.collectives.p2p.base_latency.value_or(hw.collectives.base_latency) +
         (inter_node ? hw.network.latency : hw.node.latency);
}

namespace {
double efficiency_at(const hw::EfficiencyCurve& curve, Bytes size) {
  if (curve.empty()) return 1.0;
  return curve.at(std::max(1.0, size.as_double()));
}

/// Runs flows started on `network` to completion; the time the last one took.
Time drain(FlowNetwork& network) {
  Time elapsed = Time::zero();
  std::vector<FlowNetwork::Completed> done;
  while (network.active_count() > 0) {
    const Time dt = network.next_completion();
    if (dt == Time::max()) break;
    network.advance(dt);
    elapsed += dt;
    done.clear();
    network.take_completed(done);
  }
  return elapsed;
}
}  // namespace

double comm_efficiency(Bytes size, bool inter_node, std::int64_t group_size,
                       const hw::HardwareProfile& hw) {
  return efficiency_at(hw.collectives.efficiency_curve(inter_node, group_size), size);
}

TierEfficiency collective_efficiency(Bytes size, std::int64_t members, std::int64_t nodes,
                                     const hw::HardwareProfile& hw) {
  if (nodes <= 1) {
    const double e = comm_efficiency(size, false, members, hw);
    return {e, e};
  }
  const std::int64_t per_node = (members + nodes - 1) / nodes;
  const double inter = comm_efficiency(size, true, members, hw);
  return {std::min(inter, comm_efficiency(size, false, per_node, hw)), inter};
}

double p2p_efficiency(Bytes size, bool inter_node, const hw::HardwareProfile& hw) {
  const hw::CollectiveSpec& c = hw.collectives;
  const hw::EfficiencyCurve& own =
      inter_node ? c.p2p.inter_node_efficiency : c.p2p.intra_node_efficiency;
  if (!own.empty()) return efficiency_at(own, size);
  return efficiency_at(inter_node ? c.inter_node_efficiency : c.intra_node_efficiency, size);
}

TierEfficiency collective_efficiency(CollectiveKind kind, Bytes size, std::int64_t members,
                                     std::int64_t nodes, const hw::HardwareProfile& hw) {
  // sendrecv is point-to-point traffic (each member to its neighbour): p2p's bandwidth share.
  if (kind == CollectiveKind::sendrecv) {
    return {p2p_efficiency(size, false, hw), p2p_efficiency(size, true, hw)};
  }
  return collective_efficiency(size, members, nodes, hw);
}

void append_collective_flows(CollectiveKind kind, double size, std::span<const std::int32_t> gpus,
                             std::vector<FlowSpec>& out) {
  const auto n = static_cast<std::int64_t>(gpus.size());
  if (n <= 1 || !(size > 0.0)) return;
  const double s = size;
  const double nd = static_cast<double>(n);
  auto at = [&gpus](std::int64_t i) { return gpus[static_cast<std::size_t>(i)]; };
  switch (kind) {
    case CollectiveKind::all_reduce:
    case CollectiveKind::all_gather:
    case CollectiveKind::reduce_scatter: {
      const double factor = (kind == CollectiveKind::all_reduce ? 2.0 : 1.0) * (nd - 1.0) / nd;
      for (std::int64_t i = 0; i < n; ++i)
        out.push_back({at(i), at((i + 1) % n), factor * s});
      break;
    }
    case CollectiveKind::broadcast:
      for (std::int64_t i = 0; i + 1 < n; ++i)
        out.push_back({at(i), at(i + 1), s});
      break;
    case CollectiveKind::sendrecv:
      for (std::int64_t i = 0; i < n; ++i)
        out.push_back({at(i), at((i + 1) % n), s});
      break;
    case CollectiveKind::reduce:
      for (std::int64_t i = 0; i + 1 < n; ++i)
        out.push_back({at(i + 1), at(i), s});
      break;
    case CollectiveKind::all_to_all:
      for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
          if (i != j) out.push_back({at(i), at(j), s / nd});
        }
      }
      break;
  }
}

namespace {
/// The group's members by node: nodes in order of first appearance, members in group order.
std::vector<std::vector<std::int32_t>> members_by_node(std::span<const std::int32_t> gpus,
                                                       const Topology& topology) {
  std::vector<std::vector<std::int32_t>> per_node;
  // A small group's few nodes by a scan of those seen: a flat array over every node, filled
  // for each of a Program's thousands of tensor groups, was half of indexing it on 2048 nodes.
  if (gpus.size() <= 64) {
    std::vector<std::int32_t> nodes;
    for (const std::int32_t g : gpus) {
      const std::int32_t node = topology.node_of(g);
      const auto slot =
          static_cast<std::size_t>(std::find(nodes.begin(), nodes.end(), node) - nodes.begin());
      if (slot == nodes.size()) {
        nodes.push_back(node);
        per_node.emplace_back();
      }
      per_node[slot].push_back(g);
    }
    return per_node;
  }
  // Slots by node in a flat array (a map's node per entry cost 4 % of a plan over 16 384 GPUs).
  std::vector<std::int32_t> slot_of_node(static_cast<std::size_t>(topology.node_count()), -1);
  for (const std::int32_t g : gpus) {
    std::int32_t& slot = slot_of_node[static_cast<std::size_t>(topology.node_of(g))];
    if (slot < 0) {
      slot = static_cast<std::int32_t>(per_node.size());
      per_node.emplace_back();
    }
    per_node[static_cast<std::size_t>(slot)].push_back(g);
  }
  return per_node;
}

/// NCCL's channel count for a group spread over `per_node`: one per NIC, at most one per
/// member of the node with fewest (each channel leaves every node through its own member).
std::int32_t node_channels(const std::vector<std::vector<std::int32_t>>& per_node,
                           std::int64_t nics_per_node) {
  std::size_t fewest = per_node.front().size();
  for (const auto& members : per_node)
    fewest = std::min(fewest, members.size());
  return static_cast<std::int32_t>(std::min<std::int64_t>(std::max<std::int64_t>(1, nics_per_node),
                                                          static_cast<std::int64_t>(fewest)));
}
}  // namespace

CollectiveRings collective_rings(std::span<const std::int32_t> gpus, const Topology& topology,
                                 std::int64_t nics_per_node) {
  CollectiveRings rings;
  rings.members = static_cast<std::int32_t>(gpus.size());
  rings.nodes = static_cast<std::int32_t>(gpus.size());
  rings.order.assign(gpus.begin(), gpus.end());
  if (gpus.size() <= 1) return rings;
  const std::vector<std::vector<std::int32_t>> per_node = members_by_node(gpus, topology);
  rings.nodes = static_cast<std::int32_t>(per_node.size());
  if (per_node.size() <= 1) return rings;
  const std::int32_t k = node_channels(per_node, nics_per_node);
  if (k <= 1) return rings;
  rings.channels = k;
  rings.order.clear();
  rings.order.reserve(static_cast<std::size_t>(k) * gpus.size());
  for (std::int32_t c = 0; c < k; ++c) {
    const auto begin = static_cast<std::ptrdiff_t>(rings.order.size());
    for (const auto& members : per_node) {
      // Start after position c so that the member at position c is last: it sends to the
      // next node, through its own NIC.
      const std::size_t m = members.size();
      const std::size_t first = (static_cast<std::size_t>(c) + 1) % m;
      for (std::size_t j = 0; j < m; ++j)
        rings.order.push_back(members[(first + j) % m]);
    }
    // A ring is a cycle: start it at the group's first member, the root of broadcast and
    // reduce chains.
    const auto ring_begin = rings.order.begin() + begin;
    std::rotate(ring_begin, std::find(ring_begin, rings.order.end(), gpus.front()),
                rings.order.end());
  }
  return rings;
}

std::int32_t double_tree_parent(std::int32_t rank, std::int32_t nodes, int t) {
  // ncclGetBtree: the lowest set bit of the rank; the parent flips it and sets the next,
  // falling back to flipping it alone past the end.
  const auto btree_parent = [nodes](std::int32_t r) {
    if (r == 0) return -1;
    std::int32_t bit = 1;
    while (bit < nodes && (bit & r) == 0)
      bit <<= 1;
    const std::int32_t up = (r ^ bit) | (bit << 1);
    return up >= nodes ? (r ^ bit) : up;
  };
  if (t == 0) return btree_parent(rank);
  if (nodes % 2 == 1) {  // shifted by one
    const std::int32_t up = btree_parent((rank - 1 + nodes) % nodes);
    return up < 0 ? -1 : (up + 1) % nodes;
  }
  const std::int32_t up = btree_parent(nodes - 1 - rank);  // mirrored
  return up < 0 ? -1 : nodes - 1 - up;
}

void append_tree_flows(Bytes size, std::span<const std::int32_t> gpus, const Topology& topology,
                       std::int64_t nics_per_node, std::vector<FlowSpec>& out,
                       std::span<const std::uint8_t> chain_nodes) {
  if (gpus.size() <= 1 || size.count() <= 0) return;
  const std::vector<std::vector<std::int32_t>> per_node = members_by_node(gpus, topology);
  if (per_node.size() <= 1) return;
  const std::int32_t k = node_channels(per_node, nics_per_node);
  const double channel = size.as_double() / static_cast<double>(k);
  const auto nodes = static_cast<std::int32_t>(per_node.size());
  const auto head = [&per_node](std::size_t node, std::int32_t c) {
    const auto& members = per_node[node];
    return members[static_cast<std::size_t>(c) % members.size()];
  };
  for (std::int32_t c = 0; c < k; ++c) {
    // Reduce up the chain to the head, broadcast back down: each link both ways.
    for (const auto& members : per_node) {
      const std::size_t m = members.size();
      if (!chain_nodes.empty() &&
          chain_nodes[static_cast<std::size_t>(topology.node_of(members.front()))] == 0) {
        continue;
      }
      for (std::size_t j = 0; j + 1 < m; ++j) {
        const std::int32_t upper = members[(static_cast<std::size_t>(c) + j) % m];
        const std::int32_t lower = members[(static_cast<std::size_t>(c) + j + 1) % m];
        out.push_back({lower, upper, channel});
        out.push_back({upper, lower, channel});
      }
    }
    for (int t = 0; t < 2; ++t) {
      for (std::int32_t node = 0; node < nodes; ++node) {
        const std::int32_t parent = double_tree_parent(node, nodes, t);
        if (parent < 0) continue;
        const std::int32_t child_head = head(static_cast<std::size_t>(node), c);
        const std::int32_t parent_head = head(static_cast<std::size_t>(parent), c);
        out.push_back({child_head, parent_head, channel / 2.0});
        out.push_back({parent_head, child_head, channel / 2.0});
      }
    }
  }
}

void append_collective_flows(CollectiveKind kind, Bytes size, const CollectiveRings& rings,
                             std::vector<FlowSpec>& out) {
  if (kind == CollectiveKind::all_to_all || kind == CollectiveKind::sendrecv) {
    // Every pair at once (all-to-all) or each member to the next (sendrecv), not split over the
    // node rings' channels (a multi-node group's ring 0 keeps each node's members together).
    append_collective_flows(kind, size.as_double(), rings.ring(0), out);
    return;
  }
  const double per_channel = size.as_double() / static_cast<double>(rings.channels);
  for (std::int32_t c = 0; c < rings.channels; ++c)
    append_collective_flows(kind, per_channel, rings.ring(c), out);
}

double bus_factor(CollectiveKind kind, std::int64_t n) {
  const auto nd = static_cast<double>(n);
  switch (kind) {
    case CollectiveKind::all_reduce:
      return 2.0 * (nd - 1.0) / nd;
    case CollectiveKind::all_gather:
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::all_to_all:
      return (nd - 1.0) / nd;
    case CollectiveKind::broadcast:
    case CollectiveKind::reduce:
    case CollectiveKind::sendrecv:
      return 1.0;
  }
  return 1.0;
}

std::int64_t nodes_spanned(std::span<const std::int32_t> gpus, const Topology& topology) {
  std::vector<std::int32_t> nodes;
  nodes.reserve(gpus.size());
  for (const std::int32_t g : gpus)
    nodes.push_back(topology.node_of(g));
  std::sort(nodes.begin(), nodes.end());
  return std::unique(nodes.begin(), nodes.end()) - nodes.begin();
}

void append_all_to_all_flows(Bytes size, std::span<const std::int32_t> gpus,
                             const Topology& topology, std::vector<FlowSpec>& out) {
  const std::vector<std::vector<std::int32_t>> per_node = members_by_node(gpus, topology);
  if (per_node.size() <= 1) {
    append_collective_flows(CollectiveKind::all_to_all, size.as_double(), gpus, out);
    return;
  }
  const double share = size.as_double() / static_cast<double>(gpus.size());
  for (std::size_t node = 0; node < per_node.size(); ++node) {
    const std::vector<std::int32_t>& mine = per_node[node];
    for (std::size_t i = 0; i < mine.size(); ++i) {
      for (const std::int32_t peer : mine) {
        if (peer != mine[i]) out.push_back({mine[i], peer, share});
      }
      // Everything for another node in one flow to its member on this member's rail.
      for (std::size_t other = 0; other < per_node.size(); ++other) {
        if (other == node) continue;
        const std::vector<std::int32_t>& theirs = per_node[other];
        out.push_back(
            {mine[i], theirs[i % theirs.size()], share * static_cast<double>(theirs.size())});
      }
    }
  }
}

void append_algorithm_flows(CollectiveAlgorithm algorithm, CollectiveKind kind, Bytes size,
                            std::span<const std::int32_t> gpus, const CollectiveRings& rings,
                            const Topology& topology, std::int64_t nics_per_node,
                            std::vector<FlowSpec>& out, std::span<const std::uint8_t> chain_nodes) {
  if (kind == CollectiveKind::all_to_all) {
    append_all_to_all_flows(size, gpus, topology, out);
    return;
  }
  if (algorithm == CollectiveAlgorithm::tree) {
    append_tree_flows(size, gpus, topology, nics_per_node, out, chain_nodes);
  } else {
    append_collective_flows(kind, size, rings, out);
  }
}

namespace {
/// The seconds the most loaded link needs for `flows`' bytes at full speed: a lower bound of
/// their max-min fair completion, and what NCCL's tuner compares (bytes / bandwidth).
double bottleneck_seconds(const std::vector<FlowSpec>& flows, const TierEfficiency& efficiency,
                          Topology& topology) {
  // Summed per link in flow order, as a map keyed by link would, on a flat array: ~10^5
  // flows for a group of thousands of GPUs, where a node per entry was most of choosing its
  // algorithm.
  std::vector<double> load(topology.link_count(), 0.0);
  std::vector<LinkId> used;
  for (const FlowSpec& f : flows) {
    const double wire = f.bytes / efficiency.of(topology.node_of(f.src) != topology.node_of(f.dst));
    for (const LinkId l : topology.route_links(f.src, f.dst)) {
      double& bytes = load[static_cast<std::size_t>(l)];
      if (bytes == 0.0) used.push_back(l);
      bytes += wire;
    }
  }
  double worst = 0.0;
  for (const LinkId l : used) {
    const auto i = static_cast<std::size_t>(l);
    worst = std::max(worst, load[i] / topology.link_capacities()[i]);
  }
  return worst;
}
}  // namespace

CollectiveChoice choose_algorithm(CollectiveKind kind, Bytes size,
                                  std::span<const std::int32_t> gpus, const CollectiveRings& rings,
                                  Topology& topology, const hw::HardwareProfile& hw) {
  const auto members = static_cast<std::int64_t>(gpus.size());
  const std::int64_t nodes = rings.nodes;  // nodes_spanned(gpus), found with the rings
  CollectiveChoice ring{CollectiveAlgorithm::ring, ring_latency(kind, members, nodes, hw)};
  if (kind != CollectiveKind::all_reduce || nodes <= 1 || size.count() <= 0 ||
      !hw.collectives.allows(CollectiveAlgorithm::tree))
    return ring;
  const CollectiveChoice tree{CollectiveAlgorithm::tree, tree_latency(members, nodes, hw)};
  const TierEfficiency efficiency = collective_efficiency(size, members, nodes, hw);
  // Each algorithm's bandwidth term is at most all its wire bytes over the slowest link, and
  // each moves at most 2·n·S bytes in all (the ring 2(n − 1)·S, the tree's chains and trees
  // as much): where the latencies alone differ by more, they decide, without routing a flow
  // (a scalar all-reduce over thousands of GPUs at every optimizer step). 1 % above the
  // bound covers the rounding of the sums it stands for; Time::from_seconds is monotone.
  const Time slack =
      Time::from_seconds(1.01 * 2.0 * static_cast<double>(members) * size.as_double() /
                         std::min(efficiency.intra, efficiency.inter) / topology.min_capacity());
  if (tree.latency + slack < ring.latency) return tree;
  if (ring.latency + slack <= tree.latency) return ring;
  std::vector<FlowSpec> flows;
  append_collective_flows(kind, size, rings, flows);
  const Time ring_time =
      ring.latency + Time::from_seconds(bottleneck_seconds(flows, efficiency, topology));
  flows.clear();
  append_tree_flows(size, gpus, topology, hw.network.nics_per_node, flows);
  const Time tree_time =
      tree.latency + Time::from_seconds(bottleneck_seconds(flows, efficiency, topology));
  return tree_time < ring_time ? tree : ring;
}

CollectiveEstimate estimate_collective_parts(CollectiveKind kind, Bytes size,
                                             std::span<const std::int32_t> gpus, Topology& topology,
                                             const hw::HardwareProfile& hw) {
  const std::int64_t nodes = nodes_spanned(gpus, topology);
  const CollectiveRings rings = collective_rings(gpus, topology, hw.network.nics_per_node);
  const CollectiveChoice choice = choose_algorithm(kind, size, gpus, rings, topology, hw);
  CollectiveEstimate estimate{choice.algorithm, choice.latency, Time::zero()};
  std::vector<FlowSpec> specs;
  append_algorithm_flows(choice.algorithm, kind, size, gpus, rings, topology,
                         hw.network.nics_per_node, specs);
  if (specs.empty()) return estimate;
  FlowNetwork network(topology.link_capacities());
  const TierEfficiency efficiency =
      collective_efficiency(kind, size, static_cast<std::int64_t>(gpus.size()), nodes, hw);
  for (const FlowSpec& f : specs) {
    const auto route = topology.route(f.src, f.dst);
    if (route.empty()) continue;  // same GPU: a local copy, not modelled as traffic
    network.start(route,
                  f.bytes / efficiency.of(topology.node_of(f.src) != topology.node_of(f.dst)),
                  std::numeric_limits<double>::infinity(), 0);
  }
  estimate.transfer = drain(network);
  return estimate;
}

Time estimate_collective(CollectiveKind kind, Bytes size, std::span<const std::int32_t> gpus,
                         Topology& topology, const hw::HardwareProfile& hw) {
  return estimate_collective_parts(kind, size, gpus, topology, hw).total();
}

Time estimate_p2p(Bytes size, std::int32_t src, std::int32_t dst, Topology& topology,
                  const hw::HardwareProfile& hw) {
  const bool inter = topology.node_of(src) != topology.node_of(dst);
  const Time latency = p2p_latency(inter, hw);
  const auto route = topology.route(src, dst);
  if (route.empty() || size.count() <= 0) return latency;
  FlowNetwork network(topology.link_capacities());
  network.start(route, size.as_double() / p2p_efficiency(size, inter, hw),
                std::numeric_limits<double>::infinity(), 0);
  return drain(network) + latency;
}

}  // namespace trainsim::sim
