#pragma once
// Transfers (flows) over directed links that share bandwidth max-min fairly (progressive
// filling), each flow optionally capped below its fair share. Rates are recomputed lazily,
// once per instant at which flows started or ended, so a collective that starts a thousand
// flows at once pays for one recomputation.

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "sim/engine.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

using LinkId = std::int32_t;
using FlowId = std::int32_t;

/// Longest route a flow may take, in links (GPU -> NIC -> core -> NIC -> GPU needs 5).
inline constexpr std::size_t kMaxRouteLinks = 8;

class FlowNetwork final : public Resource {
 public:
  /// `capacities` in bytes per second, indexed by LinkId; each must be positive.
  explicit FlowNetwork(std::vector<double> capacities);

  /// Starts a flow of `bytes` (> 0) along `route` (at most kMaxRouteLinks links; may be empty
  /// when only `cap` limits it) with a rate cap in bytes/s (infinity for none; the flow then
  /// needs a non-empty route). `owner` is handed back when the flow completes.
  FlowId start(std::span<const LinkId> route, double bytes, double cap, std::int32_t owner);

  /// Changes link `l`'s capacity (> 0) from now on; flows in progress keep what they moved.
  void set_capacity(LinkId l, double capacity);

  Time next_completion() override;
  void advance(Time dt) override;

  /// Removes the flows that have completed at the present instant and appends their owners
  /// to `owners` (in flow-slot order, so deterministic).
  void take_completed(std::vector<std::int32_t>& owners);

  /// Current rate of an active flow in bytes/s (after any pending recomputation).
  double rate(FlowId f);
  std::size_t active_count() const { return active_.size(); }
  /// Owner of an active flow.
  std::int32_t owner(FlowId f) const { return flows_[static_cast<std::size_t>(f)].owner; }

 private:
  struct Flow {
    std::array<LinkId, kMaxRouteLinks> links{};
    std::uint8_t link_count = 0;
    bool frozen = false;
    bool fresh = false;      ///< started since the last recomputation
    double remaining = 0.0;  ///< bytes left at `updated`
    double cap = std::numeric_limits<double>::infinity();
    double rate = 0.0;           ///< bytes per second
    std::int64_t updated = 0;    ///< ps
    std::int64_t finish_at = 0;  ///< ps
    std::int32_t owner = 0;
    std::int32_t active_slot = -1;
  };

  void settle();
  /// Refills the components touched since the last call (see recompute's comment).
  void recompute();
  /// Progressive filling of the flows in scratch_, one connected component.
  void fill_component();
  /// Union-find root of link `l`'s component (path halving).
  std::int32_t find_root(std::int32_t l);

  std::vector<double> capacity_;
  std::vector<double> residual_;
  std::vector<std::int32_t> unfrozen_on_link_;
  std::vector<std::uint8_t> link_used_;
  std::vector<LinkId> used_links_;
  std::vector<Flow> flows_;
  std::vector<FlowId> free_slots_;
  std::vector<FlowId> active_;
  std::vector<FlowId> scratch_;
  std::vector<FlowId> solved_;
  std::vector<LinkId> component_links_;
  std::vector<std::int32_t> component_;        ///< union-find parent per link
  std::vector<std::uint8_t> component_dirty_;  ///< per root: refill at the next recompute
  std::vector<LinkId> changed_links_;          ///< capacity changed or a flow left, since then
  std::vector<std::pair<std::int32_t, FlowId>> members_;  ///< (root, flow) of dirty components
  std::int64_t now_ = 0;                                  ///< ps
  std::int64_t settled_at_ = -1;  ///< the instant settle() last brought the flows up to
  std::int64_t next_finish_ = std::numeric_limits<std::int64_t>::max();
  bool dirty_ = false;
};

}  // namespace trainsim::sim
