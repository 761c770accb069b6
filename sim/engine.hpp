#pragma once
// The discrete-event core: a 4-ary-heap event queue ordered by (time, priority class,
// insertion sequence) and a loop that interleaves events with the completions of
// continuous resources (links sharing bandwidth). Events are plain data dispatched by the
// owner, so the engine holds no callbacks and no global state; each Simulation owns one.

#include <cstdint>
#include <vector>

#include "units/units.hpp"

namespace trainsim::sim {

/// Events at the same time run in ascending priority class, then in insertion order.
enum class Priority : std::uint8_t { completion = 0, start = 1, late = 2 };

/// A scheduled occurrence; `kind`, `a`, `b` and `version` are interpreted by the owner.
struct Event {
  Time at;
  std::uint64_t order = 0;  ///< priority in the top 8 bits, insertion sequence below
  std::int32_t kind = 0;
  std::int32_t a = 0;
  std::int32_t b = 0;
  std::uint32_t version = 0;

  Priority priority() const { return static_cast<Priority>(order >> 56); }
};

/// Min-heap (4-ary) of events: O(log n) push and pop, deterministic ties.
class EventQueue {
 public:
  /// Queues `e` (its `order` field is overwritten from `p` and the insertion count).
  void push(Event e, Priority p);
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  /// The earliest event; undefined when empty.
  const Event& top() const { return heap_.front(); }
  /// Removes and returns the earliest event; undefined when empty.
  Event pop();
  void reserve(std::size_t n) { heap_.reserve(n); }

 private:
  std::vector<Event> heap_;
  std::uint64_t sequence_ = 0;
};

/// A continuous activity holder (a link network): it knows when its next activity ends and
/// moves its activities forward when the clock moves.
class Resource {
 public:
  virtual ~Resource() = default;
  /// Duration from the resource's present until its next completion; Time::max() when idle.
  virtual Time next_completion() = 0;
  /// Moves the resource's present forward by `dt` (never past its next completion).
  virtual void advance(Time dt) = 0;
};

/// Clock, queue and resources of one simulation. `run` pops events in order; before each
/// new instant it asks the resources for their next completion, and a resource completion
/// that comes strictly before the next event is delivered first. Events at the current
/// instant are all handled before any resource completion at that instant.
class Engine {
 public:
  Time now() const { return now_; }
  /// Schedules an event at absolute time `at` (clamped to now when earlier).
  void schedule(Time at, Priority p, std::int32_t kind, std::int32_t a = 0, std::int32_t b = 0,
                std::uint32_t version = 0);
  /// Registers a resource (not owned; must outlive the engine's run).
  void add_resource(Resource& r) { resources_.push_back(&r); }
  /// Events and resource completions handled so far (stale events excluded by the owner).
  std::int64_t events_processed() const { return events_processed_; }
  void count_stale() { --events_processed_; }
  void reserve(std::size_t n) { queue_.reserve(n); }

  /// Runs until neither events nor resource activity remain. `handler.on_event(const Event&)`
  /// handles an event; `handler.on_resource(std::size_t index)` handles a completion of
  /// resource `index` at the current time.
  template <class Handler>
  void run(Handler& handler) {
    for (;;) {
      if (!queue_.empty() && queue_.top().at == now_) {
        const Event e = queue_.pop();
        ++events_processed_;
        handler.on_event(e);
        continue;
      }
      Time next = queue_.empty() ? Time::max() : queue_.top().at;
      std::size_t which = resources_.size();
      for (std::size_t i = 0; i < resources_.size(); ++i) {
        const Time dt = resources_[i]->next_completion();
        if (dt == Time::max()) continue;
        if (now_ + dt < next) {
          next = now_ + dt;
          which = i;
        }
      }
      if (next == Time::max()) return;
      move_to(next);
      if (which < resources_.size()) {
        ++events_processed_;
        handler.on_resource(which);
      }
    }
  }

 private:
  void move_to(Time t);

  Time now_ = Time::zero();
  EventQueue queue_;
  std::vector<Resource*> resources_;
  std::int64_t events_processed_ = 0;
};

}  // namespace trainsim::sim
