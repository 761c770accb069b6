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

void FlowNetwork::recompute() {
  settle();
  dirty_ = false;
  used_links_.clear();
  scratch_.clear();
  for (const FlowId id : active_) {
    Flow& f = flows_[static_cast<std::size_t>(id)];
    f.rate = 0.0;
    f.frozen = false;
    scratch_.push_back(id);
    for (std::uint8_t i = 0; i < f.link_count; ++i) {
      const auto l = static_cast<std::size_t>(f.links[i]);
      if (!link_used_[l]) {
        link_used_[l] = 1;
        used_links_.push_back(f.links[i]);
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
    for (const LinkId l : used_links_) {
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
    for (const LinkId l : used_links_) {
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
  for (const LinkId l : used_links_)
    link_used_[static_cast<std::size_t>(l)] = 0;
  next_finish_ = kNever;
  for (const FlowId id : active_) {
    Flow& f = flows_[static_cast<std::size_t>(id)];
    if (f.rate > 0.0) {
      f.finish_at = now_ + std::llround(f.remaining / f.rate * 1e12);
    } else {
      f.finish_at = kNever;
    }
    next_finish_ = std::min(next_finish_, f.finish_at);
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
