#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

#include "sim/engine.hpp"
#include "units/doctest_printers.hpp"

using namespace trainsim;
using namespace trainsim::sim;

TEST_CASE("events pop in (time, priority class, insertion order)") {
  EventQueue q;
  q.push(Event{Time::from_ps(5), 0, 1, 0, 0, 0}, Priority::start);
  q.push(Event{Time::from_ps(5), 0, 2, 0, 0, 0}, Priority::completion);
  q.push(Event{Time::from_ps(1), 0, 3, 0, 0, 0}, Priority::late);
  q.push(Event{Time::from_ps(5), 0, 4, 0, 0, 0}, Priority::completion);
  q.push(Event{Time::from_ps(5), 0, 5, 0, 0, 0}, Priority::start);
  std::vector<int> kinds;
  while (!q.empty())
    kinds.push_back(q.pop().kind);
  CHECK(kinds == std::vector<int>{3, 2, 4, 1, 5});
}

namespace {
// A resource that completes once, `left` after the start.
class Countdown final : public Resource {
 public:
  explicit Countdown(Time left) : left_(left) {}
  Time next_completion() override { return done_ ? Time::max() : left_; }
  void advance(Time dt) override { left_ -= dt; }
  void finish() { done_ = true; }

 private:
  Time left_;
  bool done_ = false;
};

struct Recorder {
  Engine& engine;
  Countdown& countdown;
  std::vector<std::pair<long long, int>> seen;
  void on_event(const Event& e) {
    seen.emplace_back(engine.now().ps(), e.kind);
    if (e.kind == 1) engine.schedule(engine.now() + Time::from_ps(10), Priority::start, 2);
  }
  void on_resource(std::size_t) {
    seen.emplace_back(engine.now().ps(), -1);
    countdown.finish();
  }
};
}  // namespace

TEST_CASE("many events, pushes and pops interleaved: the order a full sort gives") {
  // Many equal times and priorities, so ties are broken by insertion order deep in the heap.
  std::mt19937 rng(7);
  EventQueue q;
  std::vector<std::tuple<std::int64_t, int, int>> pending;  // (time ps, priority, id)
  std::vector<int> popped;
  std::vector<int> want;
  int next_id = 0;
  Time now = Time::zero();
  for (int round = 0; round < 2000; ++round) {
    const int pushes = static_cast<int>(rng() % 4);
    for (int k = 0; k < pushes; ++k) {
      Event e;
      e.at = now + Time::from_ps(static_cast<std::int64_t>(rng() % 5));
      e.a = next_id;
      const int p = static_cast<int>(rng() % 3);
      pending.emplace_back(e.at.ps(), p, next_id++);
      q.push(e, static_cast<Priority>(p));
    }
    if (rng() % 2 == 0 && !q.empty()) {
      const Event e = q.pop();
      popped.push_back(e.a);
      now = e.at;
      const auto first = std::min_element(pending.begin(), pending.end());
      want.push_back(std::get<2>(*first));
      pending.erase(first);
    }
  }
  while (!q.empty()) {
    popped.push_back(q.pop().a);
    const auto first = std::min_element(pending.begin(), pending.end());
    want.push_back(std::get<2>(*first));
    pending.erase(first);
  }
  CHECK(popped.size() == static_cast<std::size_t>(next_id));
  CHECK(popped == want);
}

TEST_CASE("the engine interleaves events with resource completions") {
  Engine engine;
  Countdown c(Time::from_ps(7));
  engine.add_resource(c);
  engine.schedule(Time::from_ps(3), Priority::start, 1);
  Recorder rec{engine, c, {}};
  engine.run(rec);
  using P = std::pair<long long, int>;
  CHECK(rec.seen == std::vector<P>{P{3, 1}, P{7, -1}, P{13, 2}});
  CHECK(engine.now() == Time::from_ps(13));
  CHECK(engine.events_processed() == 3);
}
