// The reduced Programs a traffic floor leaves for the layout's reduced fit
// (sim/analysis/program_shelf): taken once, the oldest dropped, and a fit from them the same
// as one that builds its own.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "reduced_layouts.hpp"
#include "sim/analysis/layout_estimate.hpp"
#include "sim/analysis/layout_space.hpp"
#include "sim/analysis/program_shelf.hpp"
#include "sim/analysis/traffic_floor.hpp"
#include "sim_fixtures.hpp"

namespace trainsim::sim {
namespace {

std::shared_ptr<const ReducedPrograms> programs_of_world(std::int32_t world) {
  auto p = std::make_shared<ReducedPrograms>();
  (*p)[0].world_size = world;
  return p;
}

TEST_CASE("ProgramShelf: taken once, by key, the oldest dropped past its capacity") {
  ProgramShelf shelf;
  CHECK(shelf.take("a") == nullptr);
  shelf.put("a", programs_of_world(1));
  shelf.put("b", programs_of_world(2));
  const auto b = shelf.take("b");
  REQUIRE(b != nullptr);
  CHECK((*b)[0].world_size == 2);
  CHECK(shelf.take("b") == nullptr);
  for (std::size_t k = 0; k < ProgramShelf::kLayouts; ++k)
    shelf.put(std::to_string(k), programs_of_world(3));
  CHECK(shelf.take("a") == nullptr);  // the oldest, dropped
  CHECK(shelf.take("0") != nullptr);
  CHECK(shelf.take(std::to_string(ProgramShelf::kLayouts - 1)) != nullptr);
}

/// Four Programs of `ops` ops in all (on one rank of the first).
std::shared_ptr<const ReducedPrograms> programs_of_ops(std::size_t ops) {
  auto p = std::make_shared<ReducedPrograms>();
  (*p)[0].ranks.resize(1);
  (*p)[0].ranks[0].ops.resize(ops);
  return p;
}

TEST_CASE("ProgramShelf: at most its bytes, the oldest dropped first, a set too large not kept") {
  constexpr std::size_t op = sizeof(program::Op);
  ProgramShelf shelf(10 * op);
  CHECK(shelf.max_bytes() == 10 * op);
  CHECK(ProgramShelf::bytes_of((*programs_of_ops(3))[0]) == 3 * op);
  shelf.put("too large", programs_of_ops(11));
  CHECK(shelf.take("too large") == nullptr);
  shelf.put("a", programs_of_ops(4));
  shelf.put("b", programs_of_ops(4));
  shelf.put("c", programs_of_ops(4));  // 12 ops: "a" goes
  CHECK(shelf.take("a") == nullptr);
  CHECK(shelf.take("b") != nullptr);
  shelf.put("d", programs_of_ops(6));  // "c" and "d": 10 ops, both kept
  CHECK(shelf.take("c") != nullptr);
  CHECK(shelf.take("d") != nullptr);
  shelf.put("e", programs_of_ops(10));
  shelf.clear();
  CHECK(shelf.take("e") == nullptr);
}

TEST_CASE("ProgramShelf: a traffic floor leaves no Programs past the shelf's bytes") {
  const ModelSpec model = test::small_model(4);
  const hw::HardwareProfile hw = test::rail_profile();
  const Layout reduced = test::two_node_reduced_layouts(model).front();
  ProgramShelf roomy;
  const TrafficFloor kept(model, reduced, hw, &roomy);
  const auto programs = roomy.take(describe(reduced));
  REQUIRE(programs != nullptr);
  std::size_t bytes = 0;
  for (const program::Program& p : *programs)
    bytes += ProgramShelf::bytes_of(p);
  ProgramShelf tight(bytes - 1);
  const TrafficFloor dropped(model, reduced, hw, &tight);
  CHECK(tight.take(describe(reduced)) == nullptr);
  CHECK(dropped.floor(model, reduced, 16) == kept.floor(model, reduced, 16));
}

TEST_CASE("ProgramShelf: a reduced fit from the traffic floor's Programs equals one of its own") {
  const ModelSpec model = test::small_model(4);
  const hw::HardwareProfile hw = test::rail_profile();
  std::size_t compared = 0;
  for (const Layout& reduced : test::two_node_reduced_layouts(model)) {
    const Layout& layout = reduced;  // one stage: its own reduced layout
    ProgramShelf shelf;
    const TrafficFloor floor(model, reduced, hw, &shelf);
    const ReducedFit shelved(model, reduced, hw, &shelf);
    CHECK(shelf.take(describe(reduced)) == nullptr);  // taken by the fit
    const ReducedFit own(model, reduced, hw);
    const LayoutEstimate x = shelved.estimate(model, layout, 16);
    const LayoutEstimate y = own.estimate(model, layout, 16);
    INFO(describe(layout));
    CHECK(x.iteration == y.iteration);
    CHECK(x.peak == y.peak);
    CHECK(floor.floor(model, layout, 16) == TrafficFloor(model, reduced, hw).floor(model, layout, 16));
    if (++compared == 12) break;
  }
  CHECK(compared == 12);
}

}  // namespace
}  // namespace trainsim::sim
