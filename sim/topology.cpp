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

double positive_bytes_per_second(Bandwidth b, const char* what) {
  const double v = b.bytes_per_second();
  if (!(v > 0.0)) {
    throw std::invalid_argument(fmt::format("topology: {} must be positive, got {} B/s", what, v));
  }
  return v;
}
}  // namespace

Topology::Topology(const hw::HardwareProfile& hw, std::int32_t gpu_count) : gpu_count_(gpu_count) {
  if (gpu_count < 1) {
    throw std::invalid_argument(fmt::format("topology: need at least one GPU, got {}", gpu_count));
  }
  if (hw.node.gpus < 1 || hw.network.nics_per_node < 1) {
    throw std::invalid_argument("topology: gpus per node and nics per node must be >= 1");
  }
  gpus_per_node_ = static_cast<std::int32_t>(hw.node.gpus);
  node_count_ = (gpu_count + gpus_per_node_ - 1) / gpus_per_node_;
  const double gpu_bw = positive_bytes_per_second(hw.node.gpu_bandwidth, "node.gpu_bandwidth");

  using Kind = Vertex::Kind;
  auto vertex = [this](Kind kind, std::int32_t node, std::int32_t index = 0) {
    vertices_.push_back({kind, node, index});
    return static_cast<std::int32_t>(vertices_.size() - 1);
  };
  auto link = [this](std::int32_t from, std::int32_t to, double capacity) -> LinkId {
    Edge e{from, to, -1};
    if (capacity < kUnlimited) {
      e.link = static_cast<LinkId>(capacity_.size());
      capacity_.push_back(capacity);
      min_capacity_ = std::min(min_capacity_, capacity);
      link_edge_.push_back(static_cast<std::int32_t>(edges_.size()));
    }
    edges_.push_back(e);
    return e.link;
  };

  // GPUs first so that vertex index = GPU index.
  for (std::int32_t i = 0; i < gpu_count; ++i)
    vertex(Kind::gpu, i);

  const bool multi_node = node_count_ > 1;
  const auto nics = static_cast<std::int32_t>(hw.network.nics_per_node);
  nics_per_node_ = nics;
  gpu_up_.assign(static_cast<std::size_t>(gpu_count), -1);
  gpu_down_.assign(static_cast<std::size_t>(gpu_count), -1);
  bridge_.assign(static_cast<std::size_t>(node_count_), -1);
  std::int32_t core_in = -1;
  std::int32_t core_out = -1;
  double nic_bw = 0.0;
  if (multi_node) {
    nic_bw = positive_bytes_per_second(hw.network.nic_bandwidth, "network.nic_bandwidth");
    const double oversub = std::max(1.0, hw.network.oversubscription);
    core_in = vertex(Kind::core_in, 0);
    core_out = vertex(Kind::core_out, 0);
    // Every byte reaching the core left through a NIC uplink, and without oversubscription
    // the core carries what all uplinks together can: it cannot fill before they do, so it
    // is no link of the flow network (inter-node flows then share no link beyond their NICs,
    // and the flow network refills only the flows of the NICs that changed).
    core_ =
        link(core_in, core_out, oversub > 1.0 ? nic_bw * nics * node_count_ / oversub : kUnlimited);
    nic_up_.assign(static_cast<std::size_t>(node_count_) * static_cast<std::size_t>(nics), -1);
    nic_down_.assign(nic_up_.size(), -1);
  }

  for (std::int32_t node = 0; node < node_count_; ++node) {
    const std::int32_t first = node * gpus_per_node_;
    const std::int32_t last = std::min(gpu_count, first + gpus_per_node_);
    if (hw.node.fabric == hw::FabricKind::nvswitch) {
      const std::int32_t sw = vertex(Kind::nvswitch, node);
      for (std::int32_t gpu = first; gpu < last; ++gpu) {
        gpu_up_[static_cast<std::size_t>(gpu)] = link(gpu, sw, gpu_bw);
        gpu_down_[static_cast<std::size_t>(gpu)] = link(sw, gpu, gpu_bw);
      }
    } else {
      // Split root: traffic enters at `in`, crosses the host bridge, leaves at `out`, so the
      // bridge is one shared directed link.
      const std::int32_t in = vertex(Kind::pcie_in, node);
      const std::int32_t out = vertex(Kind::pcie_out, node);
      const double bridge = hw.node.host_bridge_bandwidth
                                ? positive_bytes_per_second(*hw.node.host_bridge_bandwidth,
                                                            "node.host_bridge_bandwidth")
                                : kUnlimited;
      bridge_[static_cast<std::size_t>(node)] = link(in, out, bridge);
      for (std::int32_t gpu = first; gpu < last; ++gpu) {
        gpu_up_[static_cast<std::size_t>(gpu)] = link(gpu, in, gpu_bw);
        gpu_down_[static_cast<std::size_t>(gpu)] = link(out, gpu, gpu_bw);
      }
    }
    if (multi_node) {
      // Transmit and receive sides are separate vertices so that no intra-node route can
      // shortcut through a NIC.
      for (std::int32_t n = 0; n < nics; ++n) {
        const std::int32_t tx = vertex(Kind::nic_tx, node, n);
        const std::int32_t rx = vertex(Kind::nic_rx, node, n);
        const auto k = static_cast<std::size_t>(node) * static_cast<std::size_t>(nics) +
                       static_cast<std::size_t>(n);
        nic_up_[k] = link(tx, core_in, nic_bw);
        nic_down_[k] = link(core_out, rx, nic_bw);
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

std::string Topology::vertex_name(std::int32_t v) const {
  const Vertex& x = vertices_[static_cast<std::size_t>(v)];
  switch (x.kind) {
    case Vertex::Kind::gpu:
      return fmt::format("gpu{}", x.node);
    case Vertex::Kind::nvswitch:
      return fmt::format("nvswitch{}", x.node);
    case Vertex::Kind::pcie_in:
      return fmt::format("pcie{}.in", x.node);
    case Vertex::Kind::pcie_out:
      return fmt::format("pcie{}.out", x.node);
    case Vertex::Kind::core_in:
      return "core.in";
    case Vertex::Kind::core_out:
      return "core.out";
    case Vertex::Kind::nic_tx:
      return fmt::format("nic{}.{}.tx", x.node, x.index);
    case Vertex::Kind::nic_rx:
      return fmt::format("nic{}.{}.rx", x.node, x.index);
  }
  return "?";
}

std::string Topology::link_name(LinkId l) const {
  const Edge& e = edges_[static_cast<std::size_t>(link_edge_[static_cast<std::size_t>(l)])];
  return vertex_name(e.from) + "->" + vertex_name(e.to);
}

std::vector<LinkId> Topology::searched_route(std::int32_t from, std::int32_t to) const {
  // The graph in Boost.Graph's terms, edges added in the order the constructor made them (so
  // each vertex's out-edges keep that order): built per call, for tests.
  using Graph =
      boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                            boost::property<boost::edge_index_t, LinkId>>;
  Graph g(vertices_.size());
  for (const Edge& e : edges_) {
    boost::add_edge(static_cast<std::size_t>(e.from), static_cast<std::size_t>(e.to), e.link, g);
  }
  const auto link_of = boost::get(boost::edge_index, g);
  std::vector<LinkId> links;
  if (from == to) return links;
  // Breadth-first in out-edge order (as boost::breadth_first_search), stopping at `to`.
  std::vector<std::int32_t> predecessor(boost::num_vertices(g), -1);
  std::vector<LinkId> tree_link(boost::num_vertices(g), -1);
  std::vector<std::int32_t> frontier{from};
  predecessor[static_cast<std::size_t>(from)] = from;
  for (std::size_t head = 0;
       predecessor[static_cast<std::size_t>(to)] < 0 && head < frontier.size(); ++head) {
    const auto u = static_cast<std::size_t>(frontier[head]);
    for (auto [e, end] = boost::out_edges(u, g); e != end; ++e) {
      const auto v = boost::target(*e, g);
      if (predecessor[v] >= 0) continue;
      predecessor[v] = static_cast<std::int32_t>(u);
      tree_link[v] = link_of[*e];
      frontier.push_back(static_cast<std::int32_t>(v));
    }
  }
  if (predecessor[static_cast<std::size_t>(to)] < 0) {
    throw std::logic_error(fmt::format("topology: gpu{} cannot reach gpu{}", from, to));
  }
  for (std::int32_t v = to; v != from; v = predecessor[static_cast<std::size_t>(v)]) {
    if (const LinkId l = tree_link[static_cast<std::size_t>(v)]; l >= 0) links.push_back(l);
  }
  std::reverse(links.begin(), links.end());
  return links;
}

Topology::Links Topology::route_links(std::int32_t from, std::int32_t to) const {
  if (from < 0 || to < 0 || from >= gpu_count_ || to >= gpu_count_) {
    throw std::out_of_range(
        fmt::format("topology: route {} -> {} outside 0..{}", from, to, gpu_count_ - 1));
  }
  // Each pair has one shortest path, so this is the search's route: inside a node the fabric
  // (2 hops through an NVSwitch, 3 through a PCIe root's bridge) is shorter than leaving
  // through a NIC (5 hops); across nodes, GPU -> its NIC -> core -> the peer's NIC -> peer
  // (5 hops) is shorter than any detour through a fabric to another GPU's NIC.
  Links links;
  if (from == to) return links;
  const auto add = [&links](LinkId l) {
    if (l >= 0) links.ids[links.count++] = l;
  };
  const std::int32_t node = node_of(from);
  const std::int32_t peer_node = node_of(to);
  if (node == peer_node) {
    add(gpu_up_[static_cast<std::size_t>(from)]);
    add(bridge_[static_cast<std::size_t>(node)]);
    add(gpu_down_[static_cast<std::size_t>(to)]);
    return links;
  }
  const auto nic_slot = [this](std::int32_t gpu, std::int32_t gpu_node) {
    // GPU i of a node uses NIC i mod nics_per_node.
    return static_cast<std::size_t>(gpu_node) * static_cast<std::size_t>(nics_per_node_) +
           static_cast<std::size_t>((gpu - gpu_node * gpus_per_node_) % nics_per_node_);
  };
  add(nic_up_[nic_slot(from, node)]);
  add(core_);
  add(nic_down_[nic_slot(to, peer_node)]);
  return links;
}

std::span<const LinkId> Topology::route(std::int32_t from, std::int32_t to) {
  const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(from)) << 32) |
                            static_cast<std::uint32_t>(to);
  if (auto it = routes_.find(key); it != routes_.end()) return it->second;
  const Links links = route_links(from, to);
  return routes_.emplace(key, std::vector<LinkId>(links.begin(), links.end())).first->second;
}

std::vector<LinkId> Topology::link_images(std::span<const std::int32_t> node_image) const {
  if (node_image.size() != static_cast<std::size_t>(node_count_) ||
      gpu_count_ != node_count_ * gpus_per_node_) {
    throw std::invalid_argument(fmt::format(
        "topology: a node permutation needs {} entries over full nodes, got {} over {} GPUs",
        node_count_, node_image.size(), gpu_count_));
  }
  std::vector<LinkId> image(capacity_.size());
  for (std::size_t l = 0; l < image.size(); ++l)
    image[l] = static_cast<LinkId>(l);
  const auto map = [&image](LinkId from, LinkId to) {
    if (from >= 0) image[static_cast<std::size_t>(from)] = to;
  };
  for (std::int32_t node = 0; node < node_count_; ++node) {
    const std::int32_t to = node_image[static_cast<std::size_t>(node)];
    if (to < 0 || to >= node_count_) {
      throw std::invalid_argument(
          fmt::format("topology: node {} mapped to {}, outside 0..{}", node, to, node_count_ - 1));
    }
    for (std::int32_t i = 0; i < gpus_per_node_; ++i) {
      const auto from_gpu = static_cast<std::size_t>(node * gpus_per_node_ + i);
      const auto to_gpu = static_cast<std::size_t>(to * gpus_per_node_ + i);
      map(gpu_up_[from_gpu], gpu_up_[to_gpu]);
      map(gpu_down_[from_gpu], gpu_down_[to_gpu]);
    }
    map(bridge_[static_cast<std::size_t>(node)], bridge_[static_cast<std::size_t>(to)]);
    for (std::int32_t n = 0; n < nics_per_node_ && !nic_up_.empty(); ++n) {
      const auto from_nic = static_cast<std::size_t>(node * nics_per_node_ + n);
      const auto to_nic = static_cast<std::size_t>(to * nics_per_node_ + n);
      map(nic_up_[from_nic], nic_up_[to_nic]);
      map(nic_down_[from_nic], nic_down_[to_nic]);
    }
  }
  return image;
}

double Topology::bottleneck(std::span<const LinkId> r) const {
  double b = kUnlimited;
  for (const LinkId l : r)
    b = std::min(b, capacity_[static_cast<std::size_t>(l)]);
  return b;
}

}  // namespace trainsim::sim
