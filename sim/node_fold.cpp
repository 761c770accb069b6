#include "sim/node_fold.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>
#include <utility>

namespace trainsim::sim {
namespace {

using program::CollectiveKind;

// The length every run of interchangeable nodes splits into: the gcd of the lengths of the
// maximal runs of consecutive nodes whose GPUs stand for the same recorded ranks, position by
// position (1: nothing to fold).
std::int32_t run_length(const ProgramIndex& index, std::int32_t nodes, std::int32_t per_node) {
  const auto same = [&](std::int32_t a, std::int32_t b) {
    const auto first = index.representative.begin();
    return std::equal(first + a * per_node, first + (a + 1) * per_node, first + b * per_node);
  };
  std::int32_t length = 0;
  for (std::int32_t start = 0; start < nodes;) {
    std::int32_t end = start + 1;
    while (end < nodes && same(start, end))
      ++end;
    length = std::gcd(length, end - start);
    if (length == 1) return 1;
    start = end;
  }
  return length;
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
  const std::int32_t length = run_length(index, nodes, gpus_per_node_);
  if (length < 2 || (use == Use::replay && has_large_rooted_collective(index, topology, hw))) {
    return;
  }
  run_ = length;
  std::vector<std::int32_t> first_of_run(static_cast<std::size_t>(nodes));
  for (std::int32_t n = 0; n < nodes; ++n)
    first_of_run[static_cast<std::size_t>(n)] = n - n % run_;
  fold_ = topology.link_images(first_of_run);
  if (engine_base >= 0) {
    fold_.resize(static_cast<std::size_t>(engine_base), -1);
    for (std::int32_t g = 0; g < gpu_count_; ++g) {
      const std::int32_t node = node_of(g);
      fold_.push_back(engine_base + g - (node % run_) * gpus_per_node_);
    }
  }
}

std::int32_t NodeFold::shifted(std::int32_t gpu) const {
  const std::int32_t node = node_of(gpu);
  const std::int32_t first = node - node % run_;
  const std::int32_t next = first + (node - first + 1) % run_;
  return next * gpus_per_node_ + gpu % gpus_per_node_;
}

std::vector<program::Rank> NodeFold::kept(std::span<const program::Rank> gpus) const {
  std::vector<program::Rank> out;
  for (const program::Rank g : gpus) {
    if (keeps(g)) out.push_back(g);
  }
  return out;
}

bool NodeFold::invariant(std::span<const FlowSpec> flows) const {
  if (!active()) return true;
  // The flows by source (a counting sort), each source's sorted by (destination, bytes): the
  // set is invariant when every source's list, shifted, is its shifted source's list.
  begin_.assign(static_cast<std::size_t>(gpu_count_) + 1, 0);
  for (const FlowSpec& f : flows) {
    if (f.src < 0 || f.src >= gpu_count_ || f.dst < 0 || f.dst >= gpu_count_) return false;
    ++begin_[static_cast<std::size_t>(f.src) + 1];
  }
  std::partial_sum(begin_.begin(), begin_.end(), begin_.begin());
  to_.resize(flows.size());
  fill_.assign(begin_.begin(), begin_.end() - 1);
  for (const FlowSpec& f : flows)
    to_[static_cast<std::size_t>(fill_[static_cast<std::size_t>(f.src)]++)] = {f.dst, f.bytes};
  const auto list = [this](std::int32_t src) {
    const auto b = static_cast<std::size_t>(begin_[static_cast<std::size_t>(src)]);
    const auto e = static_cast<std::size_t>(begin_[static_cast<std::size_t>(src) + 1]);
    return std::span(to_).subspan(b, e - b);
  };
  for (std::int32_t src = 0; src < gpu_count_; ++src) {
    const auto own = list(src);
    std::sort(own.begin(), own.end());
  }
  for (std::int32_t src = 0; src < gpu_count_; ++src) {
    const auto own = list(src);
    const auto image = list(shifted(src));
    if (own.size() != image.size()) return false;
    if (own.empty()) continue;
    moved_.clear();
    for (const auto& [dst, bytes] : own)
      moved_.emplace_back(shifted(dst), bytes);
    std::sort(moved_.begin(), moved_.end());
    if (!std::equal(moved_.begin(), moved_.end(), image.begin())) return false;
  }
  return true;
}

}  // namespace trainsim::sim
