#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <memory>
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
  std::vector<FlowNetwork::Completed> owners;
  while (net.active_count() > 0) {
    const Time dt = net.next_completion();
    REQUIRE(dt != Time::max());
    net.advance(dt);
    now += dt;
    owners.clear();
    net.take_completed(owners);
    for (const FlowNetwork::Completed& c : owners) {
      for (std::int32_t k = 0; k < c.images; ++k)
        out.emplace_back(c.owner, now);
    }
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
  CHECK_THROWS_AS(net.set_capacity(2, 1 * kGB), std::out_of_range);
}

TEST_CASE("set_capacities changes links base + offset as set_capacity does each") {
  const double inf = std::numeric_limits<double>::infinity();
  FlowNetwork one_by_one({1 * kGB, 1 * kGB, 1 * kGB, 1 * kGB});
  FlowNetwork at_once({1 * kGB, 1 * kGB, 1 * kGB, 1 * kGB});
  for (FlowNetwork* net : {&one_by_one, &at_once}) {
    for (LinkId l = 0; l < 4; ++l)
      net->start(std::vector<LinkId>{l}, 2e6, inf, l);
    net->advance(Time::from_ms(1));  // 1 MB moved on each link
  }
  one_by_one.set_capacity(1, 0.5 * kGB);
  one_by_one.set_capacity(3, 0.5 * kGB);
  const std::vector<std::int32_t> offsets{0, 2};
  at_once.set_capacities(1, offsets, 0.5 * kGB);
  const auto want = drain(one_by_one);
  const auto got = drain(at_once);
  CHECK(got == want);
  REQUIRE(got.size() == 4);
  CHECK(got.back().second == Time::from_ms(2));  // the slowed links: 1 MB at 0.5 GB/s
  CHECK_THROWS_AS(at_once.set_capacities(3, offsets, 1 * kGB), std::out_of_range);
  CHECK_THROWS_AS(at_once.set_capacities(0, offsets, -1.0), std::invalid_argument);
}

namespace {
// What happens to a network at one instant, before its flows move on.
struct Step {
  Time at;
  std::vector<LinkId> route;  ///< a plain flow to start (none when empty)
  double bytes = 0.0;
  LinkId link = -1;  ///< a capacity to change (none when -1)
  double capacity = 0.0;
};

// Starts images of `bytes` over `links` (route_links each) on links of `capacities`, as one
// call when `bundled`, else one flow each; runs `steps`; returns (owner, completion time) in
// completion order and, through `active_at_start`, the flows in flight after the start.
std::vector<std::pair<int, Time>> run_flows(bool bundled, const std::vector<double>& capacities,
                                            const std::vector<LinkId>& links,
                                            std::size_t route_links, double bytes,
                                            const std::vector<Step>& steps,
                                            std::size_t* active_at_start = nullptr) {
  FlowNetwork net(capacities);
  const double inf = std::numeric_limits<double>::infinity();
  if (bundled) {
    net.start_images(links, route_links, bytes, inf, 1);
  } else {
    for (std::size_t i = 0; i < links.size(); i += route_links)
      net.start(std::span<const LinkId>(links).subspan(i, route_links), bytes, inf, 1);
  }
  if (active_at_start != nullptr) *active_at_start = net.active_count();
  std::vector<std::pair<int, Time>> out;
  std::vector<FlowNetwork::Completed> owners;
  Time now = Time::zero();
  std::size_t next = 0;
  while (net.active_count() > 0 || next < steps.size()) {
    while (next < steps.size() && steps[next].at == now) {
      const Step& s = steps[next++];
      if (!s.route.empty()) net.start(s.route, s.bytes, inf, 2);
      if (s.link >= 0) net.set_capacity(s.link, s.capacity);
    }
    Time dt = net.next_completion();
    if (next < steps.size()) dt = std::min(dt, steps[next].at - now);
    REQUIRE(dt != Time::max());
    net.advance(dt);
    now += dt;
    owners.clear();
    net.take_completed(owners);
    for (const FlowNetwork::Completed& c : owners) {
      for (std::int32_t k = 0; k < c.images; ++k)
        out.emplace_back(c.owner, now);
    }
  }
  return out;
}

// Three images of 3 MB over links {0, 3}, {1, 4}, {2, 5}, each alone on its links.
std::vector<std::pair<int, Time>> run_images(bool bundled, const std::vector<Step>& steps,
                                             std::size_t* active_at_start = nullptr) {
  return run_flows(bundled, {1 * kGB, 1 * kGB, 1 * kGB, 2 * kGB, 2 * kGB, 2 * kGB, 1 * kGB},
                   {0, 3, 1, 4, 2, 5}, 2, 3e6, steps, active_at_start);
}
}  // namespace

TEST_CASE("identical images alone on their links travel as one bundle, exactly") {
  std::size_t active = 0;
  const auto bundled = run_images(true, {}, &active);
  CHECK(active == 1);
  // 3 MB at 1 GB/s (the narrower link of each route) = 3 ms; the owner once per image.
  const std::vector<std::pair<int, Time>> expected(3, {1, Time::from_ms(3)});
  CHECK(bundled == expected);
  CHECK(run_images(false, {}) == expected);
}

TEST_CASE("a flow joining a link of one image splits the bundle, with the exact result") {
  // At 1 ms a 1 MB flow joins link 1: that image runs at 0.5 GB/s until it ends at 3 ms.
  const std::vector<Step> steps{{Time::from_ms(1), {1}, 1e6}};
  const auto bundled = run_images(true, steps);
  CHECK(bundled == run_images(false, steps));
  REQUIRE(bundled.size() == 4);
  CHECK(bundled.back() == std::pair<int, Time>{1, Time::from_ms(4)});
  // Joining at once, before the bundle was ever refilled.
  const std::vector<Step> at_once{{Time::zero(), {2}, 1e6}};
  CHECK(run_images(true, at_once) == run_images(false, at_once));
}

TEST_CASE("a capacity change reaching some images splits the bundle, one reaching all keeps it") {
  // One image's link halves at 1 ms: it needs 4 ms more; the others end at 3 ms.
  const std::vector<Step> one{{Time::from_ms(1), {}, 0.0, 1, 0.5 * kGB}};
  const auto bundled = run_images(true, one);
  CHECK(bundled == run_images(false, one));
  REQUIRE(bundled.size() == 3);
  CHECK(bundled.back() == std::pair<int, Time>{1, Time::from_ms(5)});
  // Every image's narrow link halves at 1 ms: all end together at 5 ms.
  const std::vector<Step> all{{Time::from_ms(1), {}, 0.0, 0, 0.5 * kGB},
                              {Time::from_ms(1), {}, 0.0, 1, 0.5 * kGB},
                              {Time::from_ms(1), {}, 0.0, 2, 0.5 * kGB}};
  CHECK(run_images(true, all) == std::vector<std::pair<int, Time>>(3, {1, Time::from_ms(5)}));
  CHECK(run_images(false, all) == run_images(true, all));
}

TEST_CASE("images on a link in use are started as separate flows, images sharing one as one bundle") {
  FlowNetwork net({1 * kGB, 1 * kGB});
  const double inf = std::numeric_limits<double>::infinity();
  net.start_images(std::vector<LinkId>{0, 0}, 1, 1e6, inf, 1);
  CHECK(net.active_count() == 1);  // two images sharing link 0: one bundle
  net.start(std::vector<LinkId>{1}, 1e6, inf, 2);
  CHECK(net.active_count() == 2);
  net.start_images(std::vector<LinkId>{1, 0}, 1, 1e6, inf, 3);
  CHECK(net.active_count() == 5);  // link 1 in use: separate flows, the bundle split too
  const auto done = drain(net);
  REQUIRE(done.size() == 5);
  CHECK_THROWS_AS(net.start_images(std::vector<LinkId>{0, 1, 0}, 2, 1e6, inf, 1),
                  std::invalid_argument);
}

namespace {
// 4 MB images over `links` of `capacities` (run_flows).
std::vector<std::pair<int, Time>> run_shared(bool bundled, const std::vector<double>& capacities,
                                             const std::vector<LinkId>& links,
                                             std::size_t route_links,
                                             const std::vector<Step>& steps,
                                             std::size_t* active_at_start = nullptr) {
  return run_flows(bundled, capacities, links, route_links, 4e6, steps, active_at_start);
}

// Two nodes of three GPUs, each GPU sending to its two peers at once: GPU g's uplink is link
// g, its downlink 6 + g, each shared by two images. Components: one per node.
const std::vector<LinkId> kPeers{0, 7,  0, 8,  1, 6, 1, 8,  2, 6, 2, 7,
                                 3, 10, 3, 11, 4, 9, 4, 11, 5, 9, 5, 10};
const std::vector<double> kPeerLinks(12, 1 * kGB);
}  // namespace

TEST_CASE("images sharing links among themselves travel as one bundle, exactly") {
  std::size_t active = 0;
  const auto bundled = run_shared(true, kPeerLinks, kPeers, 2, {}, &active);
  CHECK(active == 1);
  // Each link carries two images: 0.5 GB/s each, 4 MB in 8 ms; the owner once per image.
  CHECK(bundled == std::vector<std::pair<int, Time>>(12, {1, Time::from_ms(8)}));
  CHECK(run_shared(false, kPeerLinks, kPeers, 2, {}) == bundled);
  // Uneven shares (GPU 0's uplink slower): the images' rates differ, so the bundle splits at
  // its first refill, with the exact result.
  std::vector<double> slow = kPeerLinks;
  slow[0] = 0.5 * kGB;
  CHECK(run_shared(true, slow, kPeers, 2, {}) == run_shared(false, slow, kPeers, 2, {}));
}

TEST_CASE("a change reaching one component of a shared-link bundle refills that one alone") {
  // At 2 ms GPU 4's uplink halves: node 1's images are refilled, node 0's keep their state.
  const std::vector<Step> one{{Time::from_ms(2), {}, 0.0, 4, 0.5 * kGB}};
  const auto bundled = run_shared(true, kPeerLinks, kPeers, 2, one);
  CHECK(bundled == run_shared(false, kPeerLinks, kPeers, 2, one));
  REQUIRE(bundled.size() == 12);
  CHECK(bundled.front().second == Time::from_ms(8));
  CHECK(bundled.back().second > Time::from_ms(8));
  // A change in each component, every share still equal: one refill, all end together.
  std::vector<Step> all;
  for (LinkId l = 0; l < 12; ++l)
    all.push_back({Time::from_ms(2), {}, 0.0, l, 2 * kGB});
  const auto faster = run_shared(true, kPeerLinks, kPeers, 2, all);
  CHECK(faster == std::vector<std::pair<int, Time>>(12, {1, Time::from_ms(5)}));
  CHECK(run_shared(false, kPeerLinks, kPeers, 2, all) == faster);
  // A plain flow joining one image's link splits the bundle: the exact result again.
  const std::vector<Step> joins{{Time::from_ms(1), {7}, 1e6}};
  CHECK(run_shared(true, kPeerLinks, kPeers, 2, joins) ==
        run_shared(false, kPeerLinks, kPeers, 2, joins));
}

TEST_CASE("links checked for a bundle that could not form are free again afterwards") {
  FlowNetwork net({1 * kGB, 1 * kGB, 1 * kGB});
  const double inf = std::numeric_limits<double>::infinity();
  // Link 2 busy: the check fails at the last image, after marking links 0 and 1.
  net.start(std::vector<LinkId>{2}, 1e6, inf, 1);
  net.start_images(std::vector<LinkId>{0, 1, 2}, 1, 1e6, inf, 2);
  CHECK(net.active_count() == 4);
  // Links 0 and 1 carry the failed check's flows: separate flows again.
  net.start_images(std::vector<LinkId>{0, 0}, 1, 1e6, inf, 3);
  CHECK(net.active_count() == 6);
  CHECK(drain(net).size() == 6);
  // Every flow has left its links: the same links now carry one bundle.
  net.start_images(std::vector<LinkId>{0, 1, 2}, 1, 1e6, inf, 4);
  CHECK(net.active_count() == 1);
  // A plain flow joining splits it; once all have left, a bundle forms again.
  net.start(std::vector<LinkId>{1}, 1e6, inf, 5);
  CHECK(net.active_count() == 4);
  CHECK(drain(net).size() == 4);
  net.start_images(std::vector<LinkId>{2, 1}, 1, 1e6, inf, 6);
  CHECK(net.active_count() == 1);
}

TEST_CASE(
    "image sets of the same links are one shape, and one met with flows in flight counts them") {
  FlowNetwork net({1 * kGB, 1 * kGB, 1 * kGB, 1 * kGB});
  const double inf = std::numeric_limits<double>::infinity();
  const auto a = std::make_shared<const ImageSet>(std::vector<LinkId>{0, 1}, 1);
  const auto b = std::make_shared<const ImageSet>(std::vector<LinkId>{0, 1}, 1);  // a's links
  net.start_images(a, 1e6, inf, 1);
  CHECK(net.active_count() == 1);
  // b's links carry a's bundle: b's images start as flows, and split a's bundle.
  net.start_images(b, 1e6, inf, 2);
  CHECK(net.active_count() == 4);
  CHECK(drain(net).size() == 4);
  net.start_images(b, 1e6, inf, 3);
  CHECK(net.active_count() == 1);
  // Met while b's bundle is in flight on link 1: c's start is not bundled.
  const auto c = std::make_shared<const ImageSet>(std::vector<LinkId>{1, 2}, 1);
  net.start_images(c, 1e6, inf, 4);
  CHECK(net.active_count() == 4);
  CHECK(drain(net).size() == 4);
  // Met while a plain flow is on link 3: not bundled until the flow has left.
  net.start(std::vector<LinkId>{3}, 1e6, inf, 5);
  const auto d = std::make_shared<const ImageSet>(std::vector<LinkId>{2, 3}, 1);
  net.start_images(d, 1e6, inf, 6);
  CHECK(net.active_count() == 3);
  CHECK(drain(net).size() == 3);
  net.start_images(d, 1e6, inf, 7);
  net.start_images(a, 1e6, inf, 8);  // no link shared with d: bundled beside it
  CHECK(net.active_count() == 2);
  const auto done = drain(net);
  CHECK(done.size() == 4);
}

TEST_CASE("a finished bundle is handed back once with its images, split ones once each") {
  FlowNetwork net({1 * kGB, 1 * kGB, 1 * kGB, 1 * kGB});
  const double inf = std::numeric_limits<double>::infinity();
  net.start_images(std::vector<LinkId>{0, 1, 2}, 1, 1e6, inf, 7);  // one bundle of 3
  net.start(std::vector<LinkId>{3}, 1e6, inf, 8);
  net.advance(net.next_completion());
  std::vector<FlowNetwork::Completed> done;
  net.take_completed(done);
  REQUIRE(done.size() == 2);
  CHECK(done[0].owner == 7);
  CHECK(done[0].images == 3);
  CHECK(done[1].owner == 8);
  CHECK(done[1].images == 1);
  // Split by a flow joining one image's link: its images come back one by one.
  net.start_images(std::vector<LinkId>{0, 1}, 1, 1e6, inf, 9);
  net.start(std::vector<LinkId>{0}, 2e6, inf, 10);
  done.clear();
  while (net.active_count() > 0) {
    net.advance(net.next_completion());
    net.take_completed(done);
  }
  std::int32_t images_of_9 = 0;
  for (const FlowNetwork::Completed& c : done) {
    CHECK(c.images == 1);
    images_of_9 += c.owner == 9 ? 1 : 0;
  }
  CHECK(images_of_9 == 2);
}

TEST_CASE("an image set knows each link's share and the images' components") {
  // Images: {0, 1}, {2, 1}, {3, 4}, {4, 5}: link 1 joins images 0 and 1, link 4 images 2 and 3.
  const ImageSet set({0, 1, 2, 1, 3, 4, 4, 5}, 2);
  CHECK(set.images() == 4);
  CHECK(std::vector<std::int32_t>(set.shares().begin(), set.shares().end()) ==
        std::vector<std::int32_t>{1, 2, 1, 2, 1, 2, 2, 1});
  CHECK(std::vector<std::int32_t>(set.component().begin(), set.component().end()) ==
        std::vector<std::int32_t>{0, 0, 1, 1});
  CHECK(set.components() == 2);
  CHECK(std::vector<LinkId>(set.distinct_links().begin(), set.distinct_links().end()) ==
        std::vector<LinkId>{0, 1, 2, 3, 4, 5});
  CHECK(
      std::vector<std::int32_t>(set.distinct_component().begin(), set.distinct_component().end()) ==
      std::vector<std::int32_t>{0, 0, 0, 1, 1, 1});
  // A chain joined from its far end: one component, numbered by its first image.
  const ImageSet chain({9, 0, 8, 9, 7, 8}, 2);
  CHECK(chain.components() == 1);
  CHECK_THROWS_AS(ImageSet({0, 1, 2}, 2), std::invalid_argument);
  CHECK_THROWS_AS(ImageSet({0}, 9), std::invalid_argument);
}

TEST_CASE("an image set over links far apart is worked out as one over a dense range") {
  // The same images, their links spread over 10^6 ids (the comparison sort) and packed into
  // 0..5 (the counting sort over the range): the same shares, components and distinct links.
  const std::vector<LinkId> dense{0, 1, 2, 1, 3, 4, 4, 5};
  std::vector<LinkId> sparse;
  for (const LinkId l : dense)
    sparse.push_back(l * 200000);
  const ImageSet a(dense, 2);
  const ImageSet b(sparse, 2);
  const auto vec = [](auto span) { return std::vector<std::int32_t>(span.begin(), span.end()); };
  CHECK(vec(a.shares()) == vec(b.shares()));
  CHECK(vec(a.component()) == vec(b.component()));
  CHECK(vec(a.distinct_shares()) == vec(b.distinct_shares()));
  CHECK(vec(a.distinct_component()) == vec(b.distinct_component()));
  CHECK(vec(a.distinct_of()) == vec(b.distinct_of()));
  REQUIRE(b.distinct_links().size() == 6);
  CHECK(b.distinct_links().back() == 1000000);
}

TEST_CASE("flows finishing at one instant are handed back in slot order, however many") {
  // 200 flows on 200 links, started in reverse owner order, all ending at 1 ms: more than
  // a sixteenth of the slots at once, so take_completed orders them by flags per slot.
  FlowNetwork net(std::vector<double>(200, 1 * kGB));
  const double inf = std::numeric_limits<double>::infinity();
  for (LinkId l = 0; l < 200; ++l)
    net.start(std::vector<LinkId>{l}, 1e6, inf, 199 - l);
  const auto done = drain(net);
  REQUIRE(done.size() == 200);
  for (std::size_t k = 0; k < done.size(); ++k) {
    CHECK(done[k].first == 199 - static_cast<int>(k));
    CHECK(done[k].second == Time::from_ms(1));
  }
}

TEST_CASE("a set refilled again under capacities it saw before gets the answer it got then") {
  // One network starting the same image set again and again (as a group's collectives do),
  // each time under one of five capacity states that recur, with no cap and then a cap of
  // 0.3 GB/s: ten keys, more than the four answers a set keeps, so answers are replaced.
  // States 0, 1 and 3 give every image one rate (the cap's where it is lower), states 2 and 4
  // slow one uplink so that the rates differ and the bundle splits. Whatever the memory
  // answers must be what separate flows give.
  const auto set = std::make_shared<const ImageSet>(kPeers, 2);
  const double inf = std::numeric_limits<double>::infinity();
  const auto set_state = [](FlowNetwork& net, int state) {
    const double all[] = {1 * kGB, 2 * kGB, 1 * kGB, 1.5 * kGB, 2 * kGB};
    for (LinkId l = 0; l < 12; ++l)
      net.set_capacity(l, all[state]);
    if (state == 2) net.set_capacity(0, 0.5 * kGB);
    if (state == 4) net.set_capacity(3, 0.7 * kGB);
  };
  const auto run = [&](bool bundled) {
    FlowNetwork net(kPeerLinks);
    std::vector<std::pair<int, Time>> out;
    Time now = Time::zero();
    for (int round = 0; round < 20; ++round) {
      const int state = round % 5;
      const double cap = (round / 5) % 2 == 1 ? 0.3 * kGB : inf;
      set_state(net, state);
      if (bundled) {
        net.start_images(set, 4e6, cap, round);
      } else {
        for (std::size_t i = 0; i < kPeers.size(); i += 2)
          net.start(std::span<const LinkId>(kPeers).subspan(i, 2), 4e6, cap, round);
      }
      // Half way, every link changes (one refill of all components) and changes back.
      const Time half = net.next_completion().scaled(0.5);
      net.advance(half);
      now += half;
      for (LinkId l = 0; l < 12; ++l)
        net.set_capacity(l, 3 * kGB);
      net.advance(Time::from_us(100));
      now += Time::from_us(100);
      set_state(net, state);
      const auto done = drain(net);
      for (const auto& [owner, at] : done)
        out.emplace_back(owner, now + at);
      now += done.back().second;
    }
    return out;
  };
  const auto bundled = run(true);
  REQUIRE(bundled.size() == 20 * 12);
  CHECK(bundled == run(false));
}
