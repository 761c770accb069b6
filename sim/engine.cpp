#include "sim/engine.hpp"

#include <algorithm>

namespace trainsim::sim {

namespace {
// std::push_heap builds a max-heap; "greater" puts the earliest event on top.
struct Later {
  bool operator()(const Event& x, const Event& y) const {
    if (x.at != y.at) return x.at > y.at;
    return x.order > y.order;
  }
};
}  // namespace

void EventQueue::push(Event e, Priority p) {
  e.order = (static_cast<std::uint64_t>(p) << 56) | (sequence_++ & ((std::uint64_t{1} << 56) - 1));
  heap_.push_back(e);
  std::push_heap(heap_.begin(), heap_.end(), Later{});
}

Event EventQueue::pop() {
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  const Event e = heap_.back();
  heap_.pop_back();
  return e;
}

void Engine::schedule(Time at, Priority p, std::int32_t kind, std::int32_t a, std::int32_t b,
                      std::uint32_t version) {
  Event e;
  e.at = std::max(at, now_);
  e.kind = kind;
  e.a = a;
  e.b = b;
  e.version = version;
  queue_.push(e, p);
}

void Engine::move_to(Time t) {
  if (t == now_) return;
  const Time dt = t - now_;
  for (Resource* r : resources_)
    r->advance(dt);
  now_ = t;
}

}  // namespace trainsim::sim
