#include "sim/image_set.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace trainsim::sim {
ImageSet::ImageSet(std::vector<LinkId> links, std::size_t route_links)
    : links_(std::move(links)), route_links_(route_links) {
  if (route_links == 0 || route_links > kMaxRouteLinks || links_.size() % route_links != 0) {
    throw std::invalid_argument("flow network: image routes must have 1 to 8 links each");
  }
  // Entries ordered by link: a run of one link gives its share count and joins its images.
  std::vector<std::size_t> order(links_.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return links_[a] < links_[b]; });
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
