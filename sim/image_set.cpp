#include "sim/image_set.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace trainsim::sim {
namespace {

/// Indices of `links` ordered by link, equal links in index order. A launch plan's images
/// cover a dense range of link ids (a group's GPUs, their NICs, a node's fabric), so a
/// counting sort over that range, linear, is used where the range is within a few times the
/// entries: it runs for every launch plan a replay works out, and a comparison sort of the
/// indices was a tenth of a ZeRO-3 replay over thousands of nodes.
std::vector<std::size_t> by_link(const std::vector<LinkId>& links) {
  std::vector<std::size_t> order(links.size());
  if (links.empty()) return order;
  const auto [low, high] = std::minmax_element(links.begin(), links.end());
  const auto range = static_cast<std::size_t>(static_cast<std::int64_t>(*high) - *low) + 1;
  if (range > 4 * links.size() + 1024) {
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return links[a] < links[b]; });
    return order;
  }
  std::vector<std::size_t> start(range + 1, 0);
  for (const LinkId l : links)
    ++start[static_cast<std::size_t>(l - *low) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  for (std::size_t e = 0; e < links.size(); ++e)
    order[start[static_cast<std::size_t>(links[e] - *low)]++] = e;
  return order;
}

}  // namespace

ImageSet::ImageSet(std::vector<LinkId> links, std::size_t route_links)
    : links_(std::move(links)), route_links_(route_links) {
  if (route_links == 0 || route_links > kMaxRouteLinks || links_.size() % route_links != 0) {
    throw std::invalid_argument("flow network: image routes must have 1 to 8 links each");
  }
  // Entries ordered by link, equal links in entry order: a run of one link gives its share
  // count and joins its images.
  const std::vector<std::size_t> order = by_link(links_);
  std::vector<std::size_t> parent(images());
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  const auto root = [&parent](std::size_t x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  };
  shares_.assign(links_.size(), 0);
  distinct_of_.assign(links_.size(), 0);
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j < order.size() && links_[order[j]] == links_[order[i]])
      ++j;
    distinct_links_.push_back(links_[order[i]]);
    distinct_shares_.push_back(static_cast<std::int32_t>(j - i));
    std::size_t kept = root(order[i] / route_links);
    for (std::size_t k = i; k < j; ++k) {
      shares_[order[k]] = static_cast<std::int32_t>(j - i);
      distinct_of_[order[k]] = static_cast<std::int32_t>(distinct_links_.size() - 1);
      const std::size_t other = root(order[k] / route_links);
      if (other == kept) continue;
      parent[std::max(other, kept)] = std::min(other, kept);  // both roots: the lower stays
      kept = std::min(other, kept);
    }
    i = j;
  }
  component_.assign(images(), -1);
  std::vector<std::int32_t> dense(images(), -1);
  for (std::size_t i = 0; i < images(); ++i) {
    std::int32_t& c = dense[root(i)];
    if (c < 0) c = components_++;
    component_[i] = c;
  }
  distinct_component_.resize(distinct_links_.size());
  for (std::size_t e = 0; e < links_.size(); ++e) {
    distinct_component_[static_cast<std::size_t>(distinct_of_[e])] = component_[e / route_links];
  }
}

}  // namespace trainsim::sim
