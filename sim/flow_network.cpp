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
  component_.assign(capacity_.size(), 0);
  component_dirty_.assign(capacity_.size(), 0);
}

FlowId FlowNetwork::start(std::span<const LinkId> route, double bytes, double cap,
                          std::int32_t owner) {
  if (route.size() > kMaxRouteLinks) throw std::invalid_argument("flow network: route too long");
  if (route.empty() && !(cap < kInf)) {
    throw std::invalid_argument("flow network: a flow needs a route or a finite cap");
  }
  settle();
  FlowId id;
  if (!free_slots_.empty()) {
    id = free_slots_.back();
    free_slots_.pop_back();
  } else {
    id = static_cast<FlowId>(flows_.size());
    flows_.emplace_back();
  }
  Flow& f = flows_[static_cast<std::size_t>(id)];
  f = Flow{};
  std::copy(route.begin(), route.end(), f.links.begin());
  f.link_count = static_cast<std::uint8_t>(route.size());
  f.remaining = bytes;
  f.cap = cap;
  f.updated = now_;
  f.owner = owner;
  f.active_slot = static_cast<std::int32_t>(active_.size());
  f.fresh = true;
  active_.push_back(id);
  dirty_ = true;
  return id;
}

void FlowNetwork::set_capacity(LinkId l, double capacity) {
  if (!(capacity > 0.0))
    throw std::invalid_argument("flow network: link capacity must be positive");
  auto& c = capacity_.at(static_cast<std::size_t>(l));
  if (c == capacity) return;
  settle();
  c = capacity;
  // With no flow in progress a flow that starts later refills its component anyway.
  if (!active_.empty()) changed_links_.push_back(l);
  dirty_ = true;
}

void FlowNetwork::advance(Time dt) {
  now_ += dt.ps();
}

Time FlowNetwork::next_completion() {
  if (active_.empty()) return Time::max();
  if (dirty_) recompute();
  if (next_finish_ == kNever) return Time::max();
  return Time::from_ps(std::max<std::int64_t>(0, next_finish_ - now_));
}

double FlowNetwork::rate(FlowId f) {
  if (dirty_) recompute();
  return flows_[static_cast<std::size_t>(f)].rate;
}

void FlowNetwork::settle() {
  // Every caller at one instant would find the same state: settle once per instant.
  if (settled_at_ == now_) return;
  settled_at_ = now_;
  for (const FlowId id : active_) {
    Flow& f = flows_[static_cast<std::size_t>(id)];
    if (f.updated == now_) continue;
    f.remaining -= f.rate * static_cast<double>(now_ - f.updated) * 1e-12;
    f.remaining = std::max(f.remaining, 0.0);
    f.updated = now_;
  }
}

std::int32_t FlowNetwork::find_root(std::int32_t l) {
  auto* parent = component_.data();
  while (parent[l] != l) {
    parent[l] = parent[parent[l]];
    l = parent[l];
  }
  return l;
}

void FlowNetwork::recompute() {
  settle();
  dirty_ = false;
  // Max-min fairness decomposes over the connected components of the flow-link graph: a
  // component in which no flow started or ended and no link changed capacity keeps its rates
  // (and its flows their finish times), so only the touched components are refilled. With a
  // pipeline of TP groups, each node's collectives are a component of their own.
  used_links_.clear();
  for (const FlowId id : active_) {
    const Flow& f = flows_[static_cast<std::size_t>(id)];
    for (std::uint8_t i = 0; i < f.link_count; ++i) {
      const LinkId l = f.links[i];
      if (!link_used_[static_cast<std::size_t>(l)]) {
        link_used_[static_cast<std::size_t>(l)] = 1;
        used_links_.push_back(l);
        component_[static_cast<std::size_t>(l)] = l;
      }
      if (i > 0) {
        const std::int32_t a = find_root(f.links[0]);
        const std::int32_t b = find_root(l);
        if (a != b) component_[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
      }
    }
  }
  for (const LinkId l : changed_links_) {
    if (link_used_[static_cast<std::size_t>(l)]) {
      component_dirty_[static_cast<std::size_t>(find_root(l))] = 1;
    }
  }
  changed_links_.clear();
  for (const FlowId id : active_) {
    const Flow& f = flows_[static_cast<std::size_t>(id)];
    if (f.fresh && f.link_count > 0) {
      component_dirty_[static_cast<std::size_t>(find_root(f.links[0]))] = 1;
    }
  }
  members_.clear();
  for (const FlowId id : active_) {
    Flow& f = flows_[static_cast<std::size_t>(id)];
    if (f.link_count == 0) {
      // Limited by its cap alone: a component of its own, settled when it starts.
      if (f.fresh) {
        f.rate = f.cap;
        f.finish_at = now_ + std::llround(f.remaining / f.rate * 1e12);
      }
    } else {
      const std::int32_t root = find_root(f.links[0]);
      if (component_dirty_[static_cast<std::size_t>(root)]) members_.emplace_back(root, id);
    }
    f.fresh = false;
  }
  for (const LinkId l : used_links_) {
    link_used_[static_cast<std::size_t>(l)] = 0;
    component_dirty_[static_cast<std::size_t>(l)] = 0;
  }
  std::sort(members_.begin(), members_.end());
  for (std::size_t begin = 0; begin < members_.size();) {
    std::size_t end = begin + 1;
    while (end < members_.size() && members_[end].first == members_[begin].first)
      ++end;
    scratch_.clear();
    for (std::size_t k = begin; k < end; ++k)
      scratch_.push_back(members_[k].second);
    fill_component();
    begin = end;
  }
  next_finish_ = kNever;
  for (const FlowId id : active_) {
    next_finish_ = std::min(next_finish_, flows_[static_cast<std::size_t>(id)].finish_at);
  }
}

void FlowNetwork::fill_component() {
  component_links_.clear();
  for (const FlowId id : scratch_) {
    Flow& f = flows_[static_cast<std::size_t>(id)];
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
  solved_.assign(scratch_.begin(), scratch_.end());
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
  for (const FlowId id : solved_) {
    Flow& f = flows_[static_cast<std::size_t>(id)];
    f.finish_at = f.rate > 0.0 ? now_ + std::llround(f.remaining / f.rate * 1e12) : kNever;
  }
}

void FlowNetwork::take_completed(std::vector<std::int32_t>& owners) {
  if (dirty_) recompute();
  if (next_finish_ > now_) return;
  // Finished flows are collected in slot order so the owners' order never depends on the
  // history of swap-removals in the active list.
  scratch_.clear();
  for (const FlowId id : active_) {
    if (flows_[static_cast<std::size_t>(id)].finish_at <= now_) scratch_.push_back(id);
  }
  std::sort(scratch_.begin(), scratch_.end());
  settle();
  for (const FlowId id : scratch_) {
    Flow& f = flows_[static_cast<std::size_t>(id)];
    owners.push_back(f.owner);
    // Its links' components lose a flow (and may split; each part holds one of these links).
    changed_links_.insert(changed_links_.end(), f.links.begin(), f.links.begin() + f.link_count);
    const auto slot = static_cast<std::size_t>(f.active_slot);
    active_[slot] = active_.back();
    flows_[static_cast<std::size_t>(active_[slot])].active_slot = static_cast<std::int32_t>(slot);
    active_.pop_back();
    f.active_slot = -1;
    free_slots_.push_back(id);
  }
  if (!scratch_.empty()) dirty_ = true;
}

}  // namespace trainsim::sim
