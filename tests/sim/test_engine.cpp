#include <doctest/doctest.h>

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
