#include "sim/node_fold.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>

namespace trainsim::sim {
namespace {

using program::CollectiveKind;

// The shape of the fold: the nodes in blocks of run × period consecutive nodes, each shifted
// by `period` nodes within its block (cyclically), a symmetry when every node stands for the
// same recorded ranks, position by position, as the node `period` after it in its block. The
// period is 1 where a block's nodes all play one part (a pipeline stage's), more where the
// parts alternate (CP ranks with TP groups of whole nodes: with t = G, node i holds CP rank
// i mod c).
// The largest run wins, then the shortest period; {1, 1}: nothing to fold.
struct Shape {
  std::int32_t period = 1;
  std::int32_t run = 1;
};

Shape fold_shape(const program::Program& program, const ProgramIndex& index, std::int32_t nodes,
                 std::int32_t per_node) {
  // Each node's part as a number: equal numbers, equal recorded ranks position by position,
  // and equal places in their CP rings. Where CP rank 0 stands for its ring (build_program),
  // the ring's sends go from each place to the next: a shift must take places to places, as
  // it does where each CP rank is recorded on its own.
  const bool rings = program.axes.known() && program.axes.cp > 1;
  std::map<std::vector<std::int32_t>, std::int32_t> parts;
  std::vector<std::int32_t> part(static_cast<std::size_t>(nodes));
  std::vector<std::int32_t> key;
  for (std::int32_t k = 0; k < nodes; ++k) {
    const auto first = index.representative.begin() + k * per_node;
    key.assign(first, first + per_node);
    if (rings) {
      for (std::int32_t g = k * per_node; g < (k + 1) * per_node; ++g)
        key.push_back(program.axes.cp_of(g));
    }
    part[static_cast<std::size_t>(k)] =
        parts.try_emplace(key, static_cast<std::int32_t>(parts.size())).first->second;
  }
  Shape best;
  for (std::int32_t period = 1; 2 * period <= nodes; ++period) {
    if (nodes % period != 0) continue;
    // Along each residue r mod period the parts must not change inside a block: every index
    // where they change is a multiple of the run.
    std::int32_t run = nodes / period;
    for (std::int32_t r = 0; r < period && run > 1; ++r) {
      for (std::int32_t i = 1; i < nodes / period && run > 1; ++i) {
        if (part[static_cast<std::size_t>(r + i * period)] !=
            part[static_cast<std::size_t>(r + (i - 1) * period)]) {
          run = std::gcd(run, i);
        }
      }
    }
    if (run > best.run) best = {period, run};
  }
  return best;
}

// Whether some collective across nodes of more than a few scalars runs as a chain or a tree
// (rooted, so a side launch): broadcast, reduce, or an all-reduce NCCL would run as a tree.
// Each launching group's distinct calls are looked at once.
bool has_large_rooted_collective(const ProgramIndex& index, Topology& topology,
                           const hw::HardwareProfile& hw) {
  std::vector<std::pair<CollectiveKind, Bytes>> seen;
  for (const IndexedGroup& g : index.groups) {
    if (g.launches.empty()) continue;
    const IndexedGroup& first = index.groups[static_cast<std::size_t>(g.launches.front())];
    if (first.nodes <= 1) continue;
    seen.clear();
    for (const IndexedCall& c : g.calls) {
      if (c.size.as_double() <= NodeFold::kScalarBytes ||
          std::find(seen.begin(), seen.end(), std::pair{c.kind, c.size}) != seen.end()) {
        continue;
      }
      seen.emplace_back(c.kind, c.size);
      if (c.kind == CollectiveKind::broadcast || c.kind == CollectiveKind::reduce) return true;
      if (c.kind == CollectiveKind::all_reduce &&
          choose_algorithm(c.kind, c.size, first.gpus, first.rings, topology, hw).algorithm ==
              CollectiveAlgorithm::tree) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

NodeFold::NodeFold(const program::Program& program, const ProgramIndex& index, Topology& topology,
                   const hw::HardwareProfile& hw, LinkId engine_base, Use use)
    : gpus_per_node_(static_cast<std::int32_t>(hw.node.gpus)), gpu_count_(topology.gpu_count()) {
  const std::int32_t nodes = topology.node_count();
  if (program.records_every_rank() || nodes < 2 || gpu_count_ != nodes * gpus_per_node_ ||
      index.representative.size() != static_cast<std::size_t>(gpu_count_) ||
      hw.network.oversubscription > 1.0) {
    return;
  }
  const Shape shape = fold_shape(program, index, nodes, gpus_per_node_);
  if (shape.run < 2 || (use == Use::replay && has_large_rooted_collective(index, topology, hw))) {
    return;
  }
  run_ = shape.run;
  period_ = shape.period;
  std::vector<std::int32_t> kept_node(static_cast<std::size_t>(nodes));
  for (std::int32_t n = 0; n < nodes; ++n)
    kept_node[static_cast<std::size_t>(n)] = kept_node_of(n);
  fold_ = topology.link_images(kept_node);
  const std::int32_t block = run_ * period_;
  next_node_.resize(static_cast<std::size_t>(nodes));
  kept_nodes_.resize(static_cast<std::size_t>(nodes));
  for (std::int32_t n = 0; n < nodes; ++n) {
    const std::int32_t first = n - n % block;
    next_node_[static_cast<std::size_t>(n)] = first + (n - first + period_) % block;
    kept_nodes_[static_cast<std::size_t>(n)] = n - first < period_ ? 1 : 0;
  }
  if (engine_base >= 0) {
    fold_.resize(static_cast<std::size_t>(engine_base), -1);
    for (std::int32_t g = 0; g < gpu_count_; ++g) {
      fold_.push_back(engine_base + kept_node_of(node_of(g)) * gpus_per_node_ + g % gpus_per_node_);
    }
  }
}

std::int32_t NodeFold::kept_node_of(std::int32_t node) const {
  const std::int32_t offset = node % (run_ * period_);
  return node - offset + offset % period_;
}

std::int32_t NodeFold::shifted(std::int32_t gpu) const {
  const std::int32_t node = node_of(gpu);
  return gpu + (next_node_[static_cast<std::size_t>(node)] - node) * gpus_per_node_;
}

std::vector<program::Rank> NodeFold::kept(std::span<const program::Rank> gpus) const {
  std::vector<program::Rank> out;
  for (const program::Rank g : gpus) {
    if (keeps(g)) out.push_back(g);
  }
  return out;
}

bool NodeFold::chains_symmetric(std::span<const std::int32_t> gpus) const {
  if (!active()) return false;
  // Each node's members as local indices, in group order, in one flat list: node_members_
  // [start, start + count) per node, start -1 for a node outside the group.
  node_start_.assign(next_node_.size(), -1);
  node_count_.assign(next_node_.size(), 0);
  for (const std::int32_t g : gpus) {
    if (g < 0 || g >= gpu_count_) return false;
    ++node_count_[static_cast<std::size_t>(node_of(g))];
  }
  std::int32_t start = 0;
  for (std::size_t n = 0; n < node_count_.size(); ++n) {
    if (node_count_[n] == 0) continue;
    node_start_[n] = start;
    start += node_count_[n];
    node_count_[n] = 0;
  }
  node_members_.resize(gpus.size());
  for (const std::int32_t g : gpus) {
    const auto n = static_cast<std::size_t>(node_of(g));
    node_members_[static_cast<std::size_t>(node_start_[n] + node_count_[n]++)] = g % gpus_per_node_;
  }
  // The shift takes the group's nodes into themselves (so onto: it is a permutation) with
  // their members' places.
  const auto members = [this](std::size_t n) {
    return std::span<const std::int32_t>(node_members_)
        .subspan(static_cast<std::size_t>(node_start_[n]),
                 static_cast<std::size_t>(node_count_[n]));
  };
  for (std::size_t n = 0; n < node_start_.size(); ++n) {
    if (node_start_[n] < 0) continue;
    const auto image = static_cast<std::size_t>(next_node_[n]);
    if (node_start_[image] < 0 || !std::ranges::equal(members(n), members(image))) return false;
  }
  return true;
}

bool NodeFold::launches_symmetric(std::span<const program::GroupId> launches,
                                  const ProgramIndex& index) const {
  if (!active()) return false;
  const auto gpus_of = [&](std::size_t k) -> const std::vector<std::int32_t>& {
    return index.groups[static_cast<std::size_t>(launches[k])].gpus;
  };
  // Each launch by its first member: the shift maps the launches' lists one to one when each
  // list's image is the list starting at its first member's image (two lists with one image
  // would be equal, so start at one GPU, which is refused here).
  launch_at_.assign(static_cast<std::size_t>(gpu_count_), -1);
  for (std::size_t k = 0; k < launches.size(); ++k) {
    const std::vector<std::int32_t>& gpus = gpus_of(k);
    if (gpus.empty()) return false;
    for (const std::int32_t g : gpus) {
      if (g < 0 || g >= gpu_count_) return false;
    }
    std::int32_t& at = launch_at_[static_cast<std::size_t>(gpus.front())];
    if (at >= 0) return false;
    at = static_cast<std::int32_t>(k);
  }
  for (std::size_t k = 0; k < launches.size(); ++k) {
    const std::vector<std::int32_t>& gpus = gpus_of(k);
    const std::int32_t image = launch_at_[static_cast<std::size_t>(shifted(gpus.front()))];
    if (image < 0) return false;
    const std::vector<std::int32_t>& other = gpus_of(static_cast<std::size_t>(image));
    if (other.size() != gpus.size()) return false;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      if (shifted(gpus[i]) != other[i]) return false;
    }
  }
  return true;
}

std::span<const std::uint8_t> NodeFold::tree_chain_nodes(CollectiveAlgorithm algorithm,
                                                         std::span<const program::GroupId> launches,
                                                         const ProgramIndex& index) const {
  const bool symmetric = active() && algorithm == CollectiveAlgorithm::tree &&
                         std::all_of(launches.begin(), launches.end(), [&](program::GroupId h) {
                           return chains_symmetric(index.groups[static_cast<std::size_t>(h)].gpus);
                         });
  return symmetric ? std::span<const std::uint8_t>(kept_nodes_) : std::span<const std::uint8_t>();
}

bool NodeFold::invariant(std::span<const FlowSpec> flows) const {
  if (!active()) return true;
  for (const FlowSpec& f : flows) {
    if (f.src < 0 || f.src >= gpu_count_ || f.dst < 0 || f.dst >= gpu_count_) return false;
  }
  // The flows grouped by source, each source's sorted by (destination, bytes): the set is
  // invariant when every source's list, shifted, is its shifted source's list. Grouped by a
  // counting sort over the GPUs when the flows are many, else by sorting them (a tally's
  // sends of one channel: a pass over 16 384 GPUs for a few flows cost more than the sort).
  to_.clear();
  const auto list_of = [this](std::int32_t src) -> std::span<Entry> {
    if (!begin_.empty()) {
      const auto b = static_cast<std::size_t>(begin_[static_cast<std::size_t>(src)]);
      const auto e = static_cast<std::size_t>(begin_[static_cast<std::size_t>(src) + 1]);
      return std::span(to_).subspan(b, e - b);
    }
    const auto range =
        std::equal_range(to_.begin(), to_.end(), Entry{src, 0, 0.0},
                         [](const Entry& a, const Entry& b) { return a.src < b.src; });
    return {range.first, range.second};
  };
  if (flows.size() * 8 >= static_cast<std::size_t>(gpu_count_)) {
    begin_.assign(static_cast<std::size_t>(gpu_count_) + 1, 0);
    for (const FlowSpec& f : flows)
      ++begin_[static_cast<std::size_t>(f.src) + 1];
    // Each source sends as many flows as its image: a tree's leaves fewer than its inner
    // nodes, found here before any flow is placed or sorted.
    for (std::int32_t src = 0; src < gpu_count_; ++src) {
      if (begin_[static_cast<std::size_t>(src) + 1] !=
          begin_[static_cast<std::size_t>(shifted(src)) + 1]) {
        return false;
      }
    }
    std::partial_sum(begin_.begin(), begin_.end(), begin_.begin());
    to_.resize(flows.size());
    fill_.assign(begin_.begin(), begin_.end() - 1);
    for (const FlowSpec& f : flows)
      to_[static_cast<std::size_t>(fill_[static_cast<std::size_t>(f.src)]++)] = {f.src, f.dst,
                                                                                 f.bytes};
  } else {
    begin_.clear();
    for (const FlowSpec& f : flows)
      to_.push_back({f.src, f.dst, f.bytes});
  }
  // Sorted within each source (the sort by source too when not counted).
  const auto order = [](const Entry& a, const Entry& b) {
    return std::tie(a.src, a.dst, a.bytes) < std::tie(b.src, b.dst, b.bytes);
  };
  if (begin_.empty()) {
    std::sort(to_.begin(), to_.end(), order);
  } else {
    for (std::int32_t src = 0; src < gpu_count_; ++src) {
      const auto own = list_of(src);
      if (own.size() > 1) std::sort(own.begin(), own.end(), order);
    }
  }
  for (std::size_t i = 0; i < to_.size();) {
    const std::int32_t src = to_[i].src;
    const auto own = list_of(src);
    i += own.size();
    const std::int32_t image_src = shifted(src);
    const auto image = list_of(image_src);
    if (own.size() != image.size()) return false;
    if (own.size() == 1) {  // a ring's member on one channel: no list to sort
      if (shifted(own[0].dst) != image[0].dst || own[0].bytes != image[0].bytes) return false;
      continue;
    }
    moved_.clear();
    for (const Entry& e : own)
      moved_.push_back({image_src, shifted(e.dst), e.bytes});
    std::sort(moved_.begin(), moved_.end(), order);
    if (!std::equal(
            moved_.begin(), moved_.end(), image.begin(),
            [](const Entry& a, const Entry& b) { return a.dst == b.dst && a.bytes == b.bytes; })) {
      return false;
    }
  }
  return true;
}

}  // namespace trainsim::sim
