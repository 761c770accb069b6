#include "sim/collective_model.hpp"

#include <algorithm>

#include "sim/flow_network.hpp"

namespace trainsim::sim {

using program::CollectiveKind;

std::int64_t ring_steps(CollectiveKind kind, std::int64_t n) {
  if (n <= 1) return 0;
  return kind == CollectiveKind::all_reduce ? 2 * (n - 1) : n - 1;
}

Time collective_latency(CollectiveKind kind, std::int64_t members, std::int64_t nodes,
                        const hw::HardwareProfile& hw) {
  if (members <= 1) return Time::zero();
  const std::int64_t steps = ring_steps(kind, members);
  std::int64_t inter = nodes <= 1 ? 0 : (kind == CollectiveKind::all_reduce ? 2 : 1) * (nodes - 1);
  inter = std::min(inter, steps);
  return hw.collectives.base_latency + hw.node.latency * (steps - inter) +
         hw.network.latency * inter;
}

Time p2p_latency(bool inter_node, const hw::HardwareProfile& hw) {
  return hw.collectives.base_latency + (inter_node ? hw.network.latency : hw.node.latency);
}

double comm_efficiency(Bytes size, bool inter_node, const hw::HardwareProfile& hw) {
  const hw::EfficiencyCurve& curve =
      inter_node ? hw.collectives.inter_node_efficiency : hw.collectives.intra_node_efficiency;
  if (curve.empty()) return 1.0;
  return curve.at(std::max(1.0, size.as_double()));
}

void append_collective_flows(CollectiveKind kind, Bytes size, std::span<const std::int32_t> gpus,
                             std::vector<FlowSpec>& out) {
  const auto n = static_cast<std::int64_t>(gpus.size());
  if (n <= 1 || size.count() <= 0) return;
  const double s = size.as_double();
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

std::int64_t nodes_spanned(std::span<const std::int32_t> gpus, const Topology& topology) {
  std::vector<std::int32_t> nodes;
  nodes.reserve(gpus.size());
  for (const std::int32_t g : gpus)
    nodes.push_back(topology.node_of(g));
  std::sort(nodes.begin(), nodes.end());
  return std::unique(nodes.begin(), nodes.end()) - nodes.begin();
}

Time estimate_collective(CollectiveKind kind, Bytes size, std::span<const std::int32_t> gpus,
                         Topology& topology, const hw::HardwareProfile& hw) {
  const std::int64_t nodes = nodes_spanned(gpus, topology);
  const Time latency = collective_latency(kind, static_cast<std::int64_t>(gpus.size()), nodes, hw);
  std::vector<FlowSpec> specs;
  append_collective_flows(kind, size, gpus, specs);
  if (specs.empty()) return latency;
  FlowNetwork network(topology.link_capacities());
  const double efficiency = comm_efficiency(size, nodes > 1, hw);
  for (const FlowSpec& f : specs) {
    const auto route = topology.route(f.src, f.dst);
    if (route.empty()) continue;  // same GPU: a local copy, not modelled as traffic
    network.start(route, f.bytes, efficiency * topology.bottleneck(route), 0);
  }
  Time elapsed = Time::zero();
  std::vector<std::int32_t> done;
  while (network.active_count() > 0) {
    const Time dt = network.next_completion();
    if (dt == Time::max()) break;
    network.advance(dt);
    elapsed += dt;
    network.take_completed(done);
  }
  return elapsed + latency;
}

}  // namespace trainsim::sim
