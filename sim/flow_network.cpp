#include "sim/flow_network.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace trainsim::sim {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
// Relative slack when deciding that a link is full or a flow reached its cap: progressive
// filling subtracts floating-point shares, so exact zeros cannot be relied on.
constexpr double kSaturated = 1e-12;
}  // namespace

FlowNetwork::FlowNetwork(std::vector<double> capacities) : capacity_(std::move(capacities)) {
  for (const double c : capacity_) {
    if (!(c > 0.0)) throw std::invalid_argument("flow network: link capacity must be positive");
  }
  residual_.assign(capacity_.size(), 0.0);
  unfrozen_on_link_.assign(capacity_.size(), 0);
  link_used_.assign(capacity_.size(), 0);
  link_flows_.resize(capacity_.size());
  link_visited_.assign(capacity_.size(), 0);
}

FlowId FlowNetwork::start(std::span<const LinkId> route, double bytes, double cap,
                          std::int32_t owner) {
  if (route.size() > kMaxRouteLinks) throw std::invalid_argument("flow network: route too long");
  if (route.empty() && !(cap < kInf)) {
    throw std::invalid_argument("flow network: a flow needs a route or a finite cap");
  }
  FlowId id;
  if (!free_slots_.empty()) {
    id = free_slots_.back();
    free_slots_.pop_back();
  } else {
    id = static_cast<FlowId>(flows_.size());
    flows_.emplace_back();
  }
  Flow& f = flows_[static_cast<std::size_t>(id)];
  const std::uint32_t version = f.version + 1;
  f = Flow{};
  f.version = version;
  std::copy(route.begin(), route.end(), f.links.begin());
  f.link_count = static_cast<std::uint8_t>(route.size());
  for (std::uint8_t i = 0; i < f.link_count; ++i) {
    std::vector<FlowId>& on = link_flows_.at(static_cast<std::size_t>(f.links[i]));
    f.slot_on_link[i] = static_cast<std::int32_t>(on.size());
    on.push_back(id);
  }
  f.remaining = bytes;
  f.cap = cap;
  f.updated = now_;
  f.owner = owner;
  f.active_slot = static_cast<std::int32_t>(active_.size());
  active_.push_back(id);
  fresh_.push_back(id);
  dirty_ = true;
  return id;
}

void FlowNetwork::set_capacity(LinkId l, double capacity) {
  if (!(capacity > 0.0))
    throw std::invalid_argument("flow network: link capacity must be positive");
  auto& c = capacity_.at(static_cast<std::size_t>(l));
  if (c == capacity) return;
  c = capacity;
  // A link with no flow needs no refill: a flow that starts on it later refills its own.
  if (!link_flows_[static_cast<std::size_t>(l)].empty()) {
    changed_links_.push_back(l);
    dirty_ = true;
  }
}

void FlowNetwork::advance(Time dt) {
  // Rates must be those of the instant being left: refill first if anything changed.
  if (dirty_) recompute();
  now_ += dt.ps();
}

bool FlowNetwork::stale(const Due& d) const {
  const Flow& f = flows_[static_cast<std::size_t>(d.id)];
  return f.active_slot < 0 || f.version != d.version;
}

Time FlowNetwork::next_completion() {
  if (active_.empty()) return Time::max();
  if (dirty_) recompute();
  while (!due_.empty()) {
    // Drop stale entries from the back of the earliest instant until a live one is there.
    std::vector<Due>& first = due_.begin()->second;
    while (!first.empty() && stale(first.back())) {
      first.pop_back();
      --due_entries_;
    }
    if (!first.empty()) break;
    due_.erase(due_.begin());
  }
  if (due_.empty()) return Time::max();
  return Time::from_ps(std::max<std::int64_t>(0, due_.begin()->first - now_));
}

double FlowNetwork::rate(FlowId f) {
  if (dirty_) recompute();
  return flows_[static_cast<std::size_t>(f)].rate;
}

void FlowNetwork::recompute() {
  dirty_ = false;
  // Max-min fairness decomposes over the connected components of the flow-link graph: a
  // component in which no flow started or ended and no link changed capacity keeps its rates
  // and its flows their finish times, so only the touched components are refilled. A flow
  // that left marked its links, so each part of a component it split is refilled too.
  ++search_;
  for (const FlowId id : fresh_) {
    if (flows_[static_cast<std::size_t>(id)].active_slot < 0) continue;
    collect_component(id);
    if (!component_.empty()) fill_component();
  }
  for (const LinkId l : changed_links_) {
    const std::vector<FlowId>& on = link_flows_[static_cast<std::size_t>(l)];
    for (std::size_t k = 0; k < on.size(); ++k) {
      collect_component(on[k]);
      if (!component_.empty()) fill_component();
    }
  }
  fresh_.clear();
  changed_links_.clear();
  // Stale entries pile up as components are refilled: rebuild when they dominate.
  if (due_entries_ > 2 * active_.size() + 64) {
    due_.clear();
    due_entries_ = 0;
    for (const FlowId id : active_) {
      const Flow& f = flows_[static_cast<std::size_t>(id)];
      if (f.finish_at != kNever) {
        due_[f.finish_at].push_back({id, f.version});
        ++due_entries_;
      }
    }
  }
}

void FlowNetwork::collect_component(FlowId seed) {
  component_.clear();
  Flow& s = flows_[static_cast<std::size_t>(seed)];
  if (s.visited == search_) return;
  s.visited = search_;
  component_.push_back(seed);
  for (std::size_t k = 0; k < component_.size(); ++k) {
    const Flow& f = flows_[static_cast<std::size_t>(component_[k])];
    for (std::uint8_t i = 0; i < f.link_count; ++i) {
      const auto l = static_cast<std::size_t>(f.links[i]);
      if (link_visited_[l] == search_) continue;
      link_visited_[l] = search_;
      for (const FlowId g : link_flows_[l]) {
        Flow& other = flows_[static_cast<std::size_t>(g)];
        if (other.visited == search_) continue;
        other.visited = search_;
        component_.push_back(g);
      }
    }
  }
}

void FlowNetwork::fill_component() {
  const auto settle = [this](Flow& f) {
    // Bring the bytes left up to now at the old rate before the rate changes.
    f.remaining -= f.rate * static_cast<double>(now_ - f.updated) * 1e-12;
    f.remaining = std::max(f.remaining, 0.0);
    f.updated = now_;
  };
  if (component_.size() == 1) {
    // Alone on its links (most image flows of a representative replay): progressive filling
    // gives it its cap or its narrowest link, in one round; the same value, without the
    // bookkeeping.
    Flow& f = flows_[static_cast<std::size_t>(component_.front())];
    settle(f);
    f.rate = f.cap;
    for (std::uint8_t i = 0; i < f.link_count; ++i)
      f.rate = std::min(f.rate, capacity_[static_cast<std::size_t>(f.links[i])]);
    f.frozen = true;
    schedule_finish(component_.front());
    return;
  }
  component_links_.clear();
  scratch_.assign(component_.begin(), component_.end());
  for (const FlowId id : scratch_) {
    Flow& f = flows_[static_cast<std::size_t>(id)];
    settle(f);
    f.rate = 0.0;
    f.frozen = false;
    for (std::uint8_t i = 0; i < f.link_count; ++i) {
      const auto l = static_cast<std::size_t>(f.links[i]);
      if (!link_used_[l]) {
        link_used_[l] = 1;
        component_links_.push_back(f.links[i]);
        residual_[l] = capacity_[l];
        unfrozen_on_link_[l] = 0;
      }
      ++unfrozen_on_link_[l];
    }
  }
  // Progressive filling: raise every unfrozen flow's rate by the same amount until a link
  // fills or a flow reaches its cap; freeze those flows; repeat.
  while (!scratch_.empty()) {
    double delta = kInf;
    for (const LinkId l : component_links_) {
      const auto li = static_cast<std::size_t>(l);
      if (unfrozen_on_link_[li] > 0) {
        delta = std::min(delta, residual_[li] / unfrozen_on_link_[li]);
      }
    }
    for (const FlowId id : scratch_) {
      const Flow& f = flows_[static_cast<std::size_t>(id)];
      delta = std::min(delta, f.cap - f.rate);
    }
    delta = std::max(delta, 0.0);
    for (const LinkId l : component_links_) {
      const auto li = static_cast<std::size_t>(l);
      residual_[li] -= delta * unfrozen_on_link_[li];
    }
    std::size_t kept = 0;
    for (const FlowId id : scratch_) {
      Flow& f = flows_[static_cast<std::size_t>(id)];
      f.rate += delta;
      bool freeze = f.rate >= f.cap * (1.0 - kSaturated);
      for (std::uint8_t i = 0; i < f.link_count && !freeze; ++i) {
        const auto l = static_cast<std::size_t>(f.links[i]);
        freeze = residual_[l] <= capacity_[l] * kSaturated;
      }
      if (freeze) {
        // Decisions read residuals only, so dropping this flow's share count now is safe.
        f.frozen = true;
        for (std::uint8_t i = 0; i < f.link_count; ++i) {
          --unfrozen_on_link_[static_cast<std::size_t>(f.links[i])];
        }
      } else {
        scratch_[kept++] = id;
      }
    }
    // Should rounding ever leave the binding link a hair above "full", stop rather than
    // loop forever; rates are then within rounding of the max-min solution.
    if (kept == scratch_.size()) kept = 0;
    scratch_.resize(kept);
  }
  for (const LinkId l : component_links_)
    link_used_[static_cast<std::size_t>(l)] = 0;
  for (const FlowId id : component_)
    schedule_finish(id);
}

void FlowNetwork::schedule_finish(FlowId id) {
  Flow& f = flows_[static_cast<std::size_t>(id)];
  f.finish_at = f.rate > 0.0 ? now_ + std::llround(f.remaining / f.rate * 1e12) : kNever;
  ++f.version;
  if (f.finish_at != kNever) {
    due_[f.finish_at].push_back({id, f.version});
    ++due_entries_;
  }
}

void FlowNetwork::remove(FlowId id) {
  Flow& f = flows_[static_cast<std::size_t>(id)];
  for (std::uint8_t i = 0; i < f.link_count; ++i) {
    const LinkId l = f.links[i];
    std::vector<FlowId>& on = link_flows_[static_cast<std::size_t>(l)];
    const std::int32_t slot = f.slot_on_link[i];
    const FlowId moved = on.back();
    on[static_cast<std::size_t>(slot)] = moved;
    on.pop_back();
    // The flow that was last on the link now sits in the freed slot.
    Flow& m = flows_[static_cast<std::size_t>(moved)];
    for (std::uint8_t j = 0; j < m.link_count; ++j) {
      if (m.links[j] == l && m.slot_on_link[j] == static_cast<std::int32_t>(on.size())) {
        m.slot_on_link[j] = slot;
        break;
      }
    }
    // Its links' components lose a flow (and may split; each part holds one of these links).
    changed_links_.push_back(l);
  }
  const auto slot = static_cast<std::size_t>(f.active_slot);
  active_[slot] = active_.back();
  flows_[static_cast<std::size_t>(active_[slot])].active_slot = static_cast<std::int32_t>(slot);
  active_.pop_back();
  f.active_slot = -1;
  ++f.version;
  free_slots_.push_back(id);
}

void FlowNetwork::take_completed(std::vector<std::int32_t>& owners) {
  if (dirty_) recompute();
  // Finished flows are handed back in slot order so the owners' order never depends on the
  // order in which their finish times were recorded.
  scratch_.clear();
  while (!due_.empty() && due_.begin()->first <= now_) {
    for (const Due& d : due_.begin()->second) {
      if (stale(d)) continue;
      scratch_.push_back(d.id);
      ++flows_[static_cast<std::size_t>(d.id)].version;  // taken
    }
    due_entries_ -= due_.begin()->second.size();
    due_.erase(due_.begin());
  }
  if (scratch_.empty()) return;
  std::sort(scratch_.begin(), scratch_.end());
  for (const FlowId id : scratch_) {
    owners.push_back(flows_[static_cast<std::size_t>(id)].owner);
    remove(id);
  }
  dirty_ = true;
}

}  // namespace trainsim::sim
