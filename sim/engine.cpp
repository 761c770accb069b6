#include "sim/engine.hpp"

#include <algorithm>

namespace trainsim::sim {

namespace {
/// Whether `x` runs before `y`: earlier time, then lower (priority, sequence). Keys are
/// unique (the sequence is), so every correct heap pops the same order.
bool earlier(const Event& x, const Event& y) {
  if (x.at != y.at) return x.at < y.at;
  return x.order < y.order;
}
/// Children per node: a 4-ary heap is half as deep as a binary one, and a node's four
/// children (32-byte events) share two cache lines, so a pop touches fewer lines.
constexpr std::size_t kArity = 4;
}  // namespace

void EventQueue::push(Event e, Priority p) {
  e.order = (static_cast<std::uint64_t>(p) << 56) | (sequence_++ & ((std::uint64_t{1} << 56) - 1));
  // Sift up from a hole at the end.
  std::size_t hole = heap_.size();
  heap_.push_back(e);
  while (hole > 0) {
    const std::size_t parent = (hole - 1) / kArity;
    if (!earlier(e, heap_[parent])) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = e;
}

Event EventQueue::pop() {
  const Event top = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return top;
  // Sift the last event down from a hole at the root.
  std::size_t hole = 0;
  for (;;) {
    const std::size_t first = hole * kArity + 1;
    if (first >= n) break;
    std::size_t best = first;
    const std::size_t end = std::min(first + kArity, n);
    for (std::size_t c = first + 1; c < end; ++c) {
      if (earlier(heap_[c], heap_[best])) best = c;
    }
    if (!earlier(heap_[best], last)) break;
    heap_[hole] = heap_[best];
    hole = best;
  }
  heap_[hole] = last;
  return top;
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
