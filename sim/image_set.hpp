#pragma once
// The images of one transfer in a representative replay (the same bytes over routes of one
// length, one per GPU the recorded rank stands for) and how they share links among
// themselves: worked out once and started many times, since a group's collectives of one kind
// and size, and a channel's sends, start the same images every time (sim/comm_launcher.hpp).
// FlowNetwork::start_images bundles them from it without looking at their links twice.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace trainsim::sim {

using LinkId = std::int32_t;

/// Longest route a flow may take, in links (GPU -> NIC -> core -> NIC -> GPU needs 5).
inline constexpr std::size_t kMaxRouteLinks = 8;

class ImageSet {
 public:
  /// Image i travels links[i * route_links, (i + 1) * route_links). Throws
  /// std::invalid_argument unless route_links is 1 to 8 and divides links.size().
  ImageSet(std::vector<LinkId> links, std::size_t route_links);

  std::span<const LinkId> links() const { return links_; }
  std::size_t route_links() const { return route_links_; }
  std::size_t images() const { return links_.size() / route_links_; }
  /// Parallel to links(): how many images use that link.
  std::span<const std::int32_t> shares() const { return shares_; }
  /// Per image: its component (images joined, transitively, by a link they share), numbered
  /// from 0 in image order.
  std::span<const std::int32_t> component() const { return component_; }
  std::int32_t components() const { return components_; }
  /// No link carries two images (then every image is its own component).
  bool exclusive() const { return distinct_links_.size() == links_.size(); }
  /// The links the images use, each once (ascending), with the images on each and their
  /// component: what a start checks and marks.
  std::span<const LinkId> distinct_links() const { return distinct_links_; }
  std::span<const std::int32_t> distinct_shares() const { return distinct_shares_; }
  std::span<const std::int32_t> distinct_component() const { return distinct_component_; }
  /// Parallel to links(): the index of that link in distinct_links().
  std::span<const std::int32_t> distinct_of() const { return distinct_of_; }

 private:
  std::vector<LinkId> links_;
  std::size_t route_links_;
  std::vector<std::int32_t> shares_;
  std::vector<std::int32_t> component_;
  std::int32_t components_ = 0;
  std::vector<LinkId> distinct_links_;
  std::vector<std::int32_t> distinct_shares_;
  std::vector<std::int32_t> distinct_component_;
  std::vector<std::int32_t> distinct_of_;
};

}  // namespace trainsim::sim
