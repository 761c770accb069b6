#include "sim/topology.hpp"

#include <fmt/format.h>
#include <boost/graph/adjacency_list.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace trainsim::sim {

namespace {
constexpr double kUnlimited = std::numeric_limits<double>::infinity();

struct EdgeInfo {
  LinkId link = -1;  ///< -1: a hop that never limits bandwidth (modelled inside a neighbour)
};
struct VertexInfo {
  std::string name;
};
}  // namespace

struct Topology::Graph {
  using Type =
      boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, VertexInfo, EdgeInfo>;
  Type g;
};

namespace {
double positive_bytes_per_second(Bandwidth b, const char* what) {
  const double v = b.bytes_per_second();
  if (!(v > 0.0)) {
    throw std::invalid_argument(fmt::format("topology: {} must be positive, got {} B/s", what, v));
  }
  return v;
}
}  // namespace

Topology::Topology(const hw::HardwareProfile& hw, std::int32_t gpu_count)
    : gpu_count_(gpu_count), graph_(std::make_unique<Graph>()) {
  if (gpu_count < 1) {
    throw std::invalid_argument(fmt::format("topology: need at least one GPU, got {}", gpu_count));
  }
  if (hw.node.gpus < 1 || hw.network.nics_per_node < 1) {
    throw std::invalid_argument("topology: gpus per node and nics per node must be >= 1");
  }
  gpus_per_node_ = static_cast<std::int32_t>(hw.node.gpus);
  node_count_ = (gpu_count + gpus_per_node_ - 1) / gpus_per_node_;
  const double gpu_bw = positive_bytes_per_second(hw.node.gpu_bandwidth, "node.gpu_bandwidth");

  auto& g = graph_->g;
  auto vertex = [&g](std::string name) {
    return static_cast<std::int32_t>(boost::add_vertex(VertexInfo{std::move(name)}, g));
  };
  auto link = [&](std::int32_t from, std::int32_t to, double capacity) {
    EdgeInfo e;
    if (capacity < kUnlimited) {
      e.link = static_cast<LinkId>(capacity_.size());
      capacity_.push_back(capacity);
      link_name_.push_back(fmt::format("{}->{}", g[static_cast<std::size_t>(from)].name,
                                       g[static_cast<std::size_t>(to)].name));
    }
    boost::add_edge(static_cast<std::size_t>(from), static_cast<std::size_t>(to), e, g);
  };

  // GPUs first so that vertex index = GPU index.
  for (std::int32_t i = 0; i < gpu_count; ++i)
    vertex(fmt::format("gpu{}", i));

  const bool multi_node = node_count_ > 1;
  const auto nics = static_cast<std::int32_t>(hw.network.nics_per_node);
  std::int32_t core_in = -1;
  std::int32_t core_out = -1;
  double nic_bw = 0.0;
  if (multi_node) {
    nic_bw = positive_bytes_per_second(hw.network.nic_bandwidth, "network.nic_bandwidth");
    const double oversub = std::max(1.0, hw.network.oversubscription);
    core_in = vertex("core.in");
    core_out = vertex("core.out");
    // Every byte reaching the core left through a NIC uplink, and without oversubscription
    // the core carries what all uplinks together can: it cannot fill before they do, so it
    // is no link of the flow network (inter-node flows then share no link beyond their NICs,
    // and the flow network refills only the flows of the NICs that changed).
    link(core_in, core_out, oversub > 1.0 ? nic_bw * nics * node_count_ / oversub : kUnlimited);
  }

  for (std::int32_t node = 0; node < node_count_; ++node) {
    const std::int32_t first = node * gpus_per_node_;
    const std::int32_t last = std::min(gpu_count, first + gpus_per_node_);
    if (hw.node.fabric == hw::FabricKind::nvswitch) {
      const std::int32_t sw = vertex(fmt::format("nvswitch{}", node));
      for (std::int32_t gpu = first; gpu < last; ++gpu) {
        link(gpu, sw, gpu_bw);
        link(sw, gpu, gpu_bw);
      }
    } else {
      // Split root: traffic enters at `in`, crosses the host bridge, leaves at `out`, so the
      // bridge is one shared directed link.
      const std::int32_t in = vertex(fmt::format("pcie{}.in", node));
      const std::int32_t out = vertex(fmt::format("pcie{}.out", node));
      const double bridge = hw.node.host_bridge_bandwidth
                                ? positive_bytes_per_second(*hw.node.host_bridge_bandwidth,
                                                            "node.host_bridge_bandwidth")
                                : kUnlimited;
      link(in, out, bridge);
      for (std::int32_t gpu = first; gpu < last; ++gpu) {
        link(gpu, in, gpu_bw);
        link(out, gpu, gpu_bw);
      }
    }
    if (multi_node) {
      // Transmit and receive sides are separate vertices so that no intra-node route can
      // shortcut through a NIC.
      for (std::int32_t n = 0; n < nics; ++n) {
        const std::int32_t tx = vertex(fmt::format("nic{}.{}.tx", node, n));
        const std::int32_t rx = vertex(fmt::format("nic{}.{}.rx", node, n));
        link(tx, core_in, nic_bw);
        link(core_out, rx, nic_bw);
        for (std::int32_t gpu = first + n; gpu < last; gpu += nics) {
          link(gpu, tx, kUnlimited);
          link(rx, gpu, kUnlimited);
        }
      }
    }
  }
}

Topology::~Topology() = default;
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;

void Topology::search_until(std::int32_t from, std::int32_t to) {
  const auto& g = graph_->g;
  if (tree_source_ != from) {
    predecessor_.assign(boost::num_vertices(g), -1);
    tree_link_.assign(boost::num_vertices(g), -1);
    predecessor_[static_cast<std::size_t>(from)] = from;
    frontier_.assign(1, from);
    frontier_head_ = 0;
    tree_source_ = from;
  }
  // Breadth-first in out-edge order, as boost::breadth_first_search, so the tree is the same;
  // it stops once `to` is reached and resumes for the next destination from the same source
  // (inside a node that is a few vertices, not the whole cluster).
  while (predecessor_[static_cast<std::size_t>(to)] < 0 && frontier_head_ < frontier_.size()) {
    const auto u = static_cast<std::size_t>(frontier_[frontier_head_++]);
    for (auto [e, end] = boost::out_edges(u, g); e != end; ++e) {
      const auto v = boost::target(*e, g);
      if (predecessor_[v] >= 0) continue;
      predecessor_[v] = static_cast<std::int32_t>(u);
      tree_link_[v] = g[*e].link;
      frontier_.push_back(static_cast<std::int32_t>(v));
    }
  }
}

std::span<const LinkId> Topology::route(std::int32_t from, std::int32_t to) {
  if (from < 0 || to < 0 || from >= gpu_count_ || to >= gpu_count_) {
    throw std::out_of_range(
        fmt::format("topology: route {} -> {} outside 0..{}", from, to, gpu_count_ - 1));
  }
  const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(from)) << 32) |
                            static_cast<std::uint32_t>(to);
  if (auto it = routes_.find(key); it != routes_.end()) return it->second;
  std::vector<LinkId> links;
  if (from != to) {
    search_until(from, to);
    if (predecessor_[static_cast<std::size_t>(to)] < 0) {
      throw std::logic_error(fmt::format("topology: gpu{} cannot reach gpu{}", from, to));
    }
    for (std::int32_t v = to; v != from; v = predecessor_[static_cast<std::size_t>(v)]) {
      if (const LinkId l = tree_link_[static_cast<std::size_t>(v)]; l >= 0) links.push_back(l);
    }
    std::reverse(links.begin(), links.end());
  }
  return routes_.emplace(key, std::move(links)).first->second;
}

double Topology::bottleneck(std::span<const LinkId> r) const {
  double b = kUnlimited;
  for (const LinkId l : r)
    b = std::min(b, capacity_[static_cast<std::size_t>(l)]);
  return b;
}

}  // namespace trainsim::sim
