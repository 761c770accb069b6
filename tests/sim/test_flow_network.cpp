#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "sim/flow_network.hpp"
#include "units/doctest_printers.hpp"

using namespace trainsim;
using namespace trainsim::sim;

namespace {
// Runs the network alone until idle; returns (owner, completion time) in completion order.
std::vector<std::pair<int, Time>> drain(FlowNetwork& net) {
  std::vector<std::pair<int, Time>> out;
  Time now = Time::zero();
  std::vector<std::int32_t> owners;
  while (net.active_count() > 0) {
    const Time dt = net.next_completion();
    REQUIRE(dt != Time::max());
    net.advance(dt);
    now += dt;
    owners.clear();
    net.take_completed(owners);
    for (const auto o : owners)
      out.emplace_back(o, now);
  }
  return out;
}
constexpr double kGB = 1e9;
}  // namespace

TEST_CASE("two flows on one link share it equally and the survivor takes it all") {
  FlowNetwork net({1 * kGB});
  const std::vector<LinkId> route{0};
  const double inf = std::numeric_limits<double>::infinity();
  const FlowId a = net.start(route, 1e6, inf, 1);
  const FlowId b = net.start(route, 3e6, inf, 2);
  CHECK(net.rate(a) == doctest::Approx(0.5 * kGB));
  CHECK(net.rate(b) == doctest::Approx(0.5 * kGB));
  const auto done = drain(net);
  REQUIRE(done.size() == 2);
  // A: 1 MB at 0.5 GB/s = 2 ms. B: 1 MB in those 2 ms, then 2 MB at 1 GB/s = 2 ms more.
  CHECK(done[0] == std::pair<int, Time>{1, Time::from_ms(2)});
  CHECK(done[1] == std::pair<int, Time>{2, Time::from_ms(4)});
}

TEST_CASE("max-min fairness across two links with a capped flow") {
  // Links 0 and 1 of 1 GB/s. f1 crosses both, f2 only link 0, f3 only link 1 capped at
  // 0.2 GB/s. Link 0 is shared by f1 and f2 (0.5 each); f3 is capped, so f1 is limited by
  // link 0, not link 1.
  FlowNetwork net({1 * kGB, 1 * kGB});
  const double inf = std::numeric_limits<double>::infinity();
  const FlowId f1 = net.start(std::vector<LinkId>{0, 1}, 1e6, inf, 1);
  const FlowId f2 = net.start(std::vector<LinkId>{0}, 1e6, inf, 2);
  const FlowId f3 = net.start(std::vector<LinkId>{1}, 1e6, 0.2 * kGB, 3);
  CHECK(net.rate(f1) == doctest::Approx(0.5 * kGB));
  CHECK(net.rate(f2) == doctest::Approx(0.5 * kGB));
  CHECK(net.rate(f3) == doctest::Approx(0.2 * kGB));
}

TEST_CASE("a flow limited only by its cap") {
  FlowNetwork net({1 * kGB});
  net.start(std::vector<LinkId>{0}, 1e6, 0.25 * kGB, 7);
  const auto done = drain(net);
  REQUIRE(done.size() == 1);
  CHECK(done[0].second == Time::from_ms(4));
}

TEST_CASE("a capacity change mid-flow keeps the bytes already moved") {
  FlowNetwork net({1 * kGB, 2 * kGB});
  const std::vector<LinkId> route{0, 1};
  const double inf = std::numeric_limits<double>::infinity();
  const FlowId f = net.start(route, 3e6, inf, 7);
  CHECK(net.rate(f) == doctest::Approx(1 * kGB));
  net.advance(Time::from_ms(1));  // 1 MB moved at 1 GB/s
  net.set_capacity(0, 0.5 * kGB);
  CHECK(net.rate(f) == doctest::Approx(0.5 * kGB));
  net.advance(Time::from_ms(2));  // 1 MB more at 0.5 GB/s
  net.set_capacity(0, 4 * kGB);   // now link 1 binds: 1 MB left at 2 GB/s
  const auto done = drain(net);
  REQUIRE(done.size() == 1);
  CHECK(done[0].first == 7);
  CHECK(done[0].second == Time::from_us(500));
  CHECK_THROWS_AS(net.set_capacity(0, 0.0), std::invalid_argument);
}
