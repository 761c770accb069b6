// Claim maps (reproductions/claims/): the engine on closed-form evaluators whose answer is known
// (the lines, the grid, the search and its repair step, the fewest-changes setup, determinism over
// thread counts, the spec's checks), the region table's runs, the heat map's script, and the
// tensor claims on the seed papers' stated setups (the map's paper point is the reproduction's
// stated figure).

#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>

#include "documents/gnuplot_heatmap.hpp"
#include "inputs/hwprofile_loader.hpp"
#include "reproductions/claims/claim_map.hpp"
#include "reproductions/claims/claim_map_report.hpp"
#include "reproductions/claims/paper_maps.hpp"
#include "reproductions/claims/tensor_claim.hpp"

using namespace trainsim;
using namespace trainsim::documents;
using namespace trainsim::reports;
using namespace trainsim::reproductions;
using namespace trainsim::reproductions::claim_maps;

namespace {

Axis axis(std::string name, int n, std::size_t paper, std::vector<bool> plausible = {}) {
  Axis a{std::move(name), {}, paper, "test"};
  for (int i = 0; i < n; ++i) {
    const bool p = plausible.empty() || plausible[static_cast<std::size_t>(i)];
    a.values.push_back({std::to_string(i), p});
  }
  return a;
}

// ratio = 1 + x + 2y (+ z), x, y, z the value indices; infeasible where `infeasible` says.
ClaimMapSpec linear_spec(double published,
                         std::function<bool(const MapPoint&)> infeasible = nullptr) {
  ClaimMapSpec s;
  s.id = "linear";
  s.paper = "test";
  s.claim = "a linear ratio";
  s.source = "closed form";
  s.published = published;
  s.tolerance = 0.1;
  s.axes = {axis("x", 4, 0), axis("y", 3, 0), axis("z", 2, 0)};
  s.grid_x = 0;
  s.grid_y = 1;
  s.evaluate = [infeasible](const MapPoint& p) {
    MapValue v;
    v.ratio = 1.0 + static_cast<double>(p[0]) + 2.0 * static_cast<double>(p[1]) +
              static_cast<double>(p[2]);
    if (infeasible && infeasible(p)) {
      v.feasible = false;
      v.note = "does not fit";
    }
    return v;
  };
  return s;
}

}  // namespace

TEST_CASE("claim map: lines and grid through the paper's machine") {
  const ClaimMap map = run_claim_map(linear_spec(100.0), 1);
  CHECK(map.at_paper.ratio == doctest::Approx(1.0));
  REQUIRE(map.lines.size() == 3);
  CHECK(map.lines[0].values.size() == 4);
  CHECK(map.lines[0].values[3].ratio == doctest::Approx(4.0));
  CHECK(map.lines[1].values[2].ratio == doctest::Approx(5.0));
  REQUIRE(map.grid.size() == 3);     // y values
  REQUIRE(map.grid[0].size() == 4);  // x values
  CHECK(map.grid[2][3].ratio == doctest::Approx(1.0 + 3.0 + 4.0));
  // 100x is far beyond the space: the closest is the corner, and nothing is within 10 %.
  CHECK_FALSE(map.reproduced_plausibly());
  CHECK(map.closest == MapPoint{3, 2, 1});
  CHECK(map.closest_value.ratio == doctest::Approx(9.0));
}

TEST_CASE("claim map: the search finds the published figure and names the fewest changes") {
  // 5 = 1 + 2·2 (y = 2 alone) = 1 + 2 + 2·1 + 0 … the fewest changes is y = 2 alone.
  const ClaimMap map = run_claim_map(linear_spec(5.0), 1);
  REQUIRE(map.reproduced_plausibly());
  CHECK(map.fewest_changes_value->ratio == doctest::Approx(5.0));
  CHECK(*map.fewest_changes == MapPoint{0, 2, 0});
  CHECK(map.spec.describe_change(*map.fewest_changes) == "y 2");
  CHECK(map.spec.describe_change(map.spec.paper_point()) == "the paper's machine");
}

TEST_CASE("claim map: implausible values are shown on the lines but never searched") {
  ClaimMapSpec s = linear_spec(9.0);
  s.axes[1] = axis("y", 3, 0, {true, true, false});  // y = 2 is not plausible
  const ClaimMap map = run_claim_map(s, 1);
  CHECK(map.lines[1].values[2].ratio == doctest::Approx(5.0));  // on the line
  // Without y = 2 the largest plausible ratio is 1 + 3 + 2 + 1 = 7.
  CHECK_FALSE(map.reproduced_plausibly());
  CHECK(map.closest_value.ratio == doctest::Approx(7.0));
  CHECK(map.spec.plausible(map.closest));
}

TEST_CASE("claim map: an infeasible move nearer the figure is repaired by a second axis") {
  // Only z = 1 makes x = 3 feasible (a batch that fits only with more memory). From the
  // paper's machine, moving x alone to 3 is infeasible; the repair step finds x = 3, z = 1.
  auto infeasible = [](const MapPoint& p) { return p[0] == 3 && p[2] == 0; };
  ClaimMapSpec s = linear_spec(5.0, infeasible);
  s.axes[1] = axis("y", 3, 0, {true, false, false});  // only y = 0: 5 needs x = 3, z = 1
  const ClaimMap map = run_claim_map(s, 1);
  REQUIRE(map.reproduced_plausibly());
  CHECK(*map.fewest_changes == MapPoint{3, 0, 1});
  CHECK(map.fewest_changes_value->feasible);
}

TEST_CASE("claim map: infeasible setups never reproduce a figure") {
  auto everything_else = [](const MapPoint& p) { return p != MapPoint{0, 0, 0}; };
  const ClaimMap map = run_claim_map(linear_spec(5.0, everything_else), 1);
  CHECK_FALSE(map.reproduced_plausibly());
  CHECK(map.closest == map.spec.paper_point());
  CHECK_FALSE(map.within(map.grid[2][0]));  // ratio 5, but infeasible
}

TEST_CASE("claim map: the result does not depend on the thread count, and each setup runs once") {
  std::atomic<int> calls{0};
  ClaimMapSpec s = linear_spec(6.0);
  auto inner = s.evaluate;
  s.evaluate = [inner, &calls](const MapPoint& p) {
    ++calls;
    return inner(p);
  };
  const ClaimMap one = run_claim_map(s, 1);
  const int calls_one = calls.exchange(0);
  const ClaimMap four = run_claim_map(s, 4);
  CHECK(calls.load() == calls_one);
  CHECK(static_cast<std::size_t>(calls_one) == one.evaluations);
  CHECK(one.closest == four.closest);
  CHECK(one.fewest_changes == four.fewest_changes);
  CHECK(claim_map_json(one).dump() == claim_map_json(four).dump());
}

TEST_CASE("claim map: a malformed spec is refused with what is wrong") {
  ClaimMapSpec s = linear_spec(2.0);
  s.axes[0].paper = 9;
  CHECK_THROWS_WITH_AS(run_claim_map(s), doctest::Contains("not one of its 4 values"),
                       std::invalid_argument);
  s = linear_spec(2.0);
  s.axes[0].values[0].plausible = false;
  CHECK_THROWS_WITH_AS(run_claim_map(s), doctest::Contains("marked implausible"),
                       std::invalid_argument);
  s = linear_spec(2.0);
  s.grid_y = 0;
  CHECK_THROWS_WITH_AS(run_claim_map(s), doctest::Contains("two different axes"),
                       std::invalid_argument);
  s = linear_spec(2.0);
  s.evaluate = nullptr;
  CHECK_THROWS_AS(run_claim_map(s), std::invalid_argument);
  s = linear_spec(0.0);
  CHECK_THROWS_WITH_AS(run_claim_map(s), doctest::Contains("not positive"), std::invalid_argument);
}

TEST_CASE("claim map report: region runs, grid marks, verdict and heat map") {
  const ClaimMap map = run_claim_map(linear_spec(3.0), 1);
  const ReportTable region = region_table(map);
  REQUIRE(region.rows.size() == 3);
  // Along x (y = z = 0) the ratio is 1, 2, 3, 4: within ±10 % of 3 only at x = 2; never
  // below 1; at most 1.5 (half of 3) only at x = 0.
  CHECK(region.rows[0][3] == "2");
  CHECK(region.rows[0][4] == "—");
  CHECK(region.rows[0][5] == "0");
  // Along z: 1, 2: neither within.
  CHECK(region.rows[2][3] == "—");
  const ReportTable grid = grid_table(map);
  REQUIRE(grid.rows.size() == 3);
  CHECK(grid.rows.front()[0] == "2");   // the top row is the last y value
  CHECK(grid.rows.back()[3] == "3 ✓");  // y = 0, x = 2
  const std::string verdict = verdict_text(map);
  CHECK(verdict.find("arises at a setup plausible") != std::string::npos);
  const HeatmapSpec h = heatmap(map);
  CHECK(h.cells.size() == 3);
  CHECK(h.cells[0][2].outlined);
  CHECK(h.markers.size() == 2);  // the paper's machine, and x = 2 on the grid
  const std::string script = heatmap_script(h);
  CHECK(script.find("boxxyerror") != std::string::npos);
  CHECK(script.find("the paper''s machine") != std::string::npos);  // quote doubled
}

TEST_CASE("heat map: a grid with no value plots no empty data block") {
  HeatmapSpec h;
  h.x_ticks = {"a"};
  h.y_ticks = {"b"};
  h.cells = {{HeatmapCell{NAN, "-", false}}};
  const std::string script = heatmap_script(h);
  CHECK(script.find("$cells using") == std::string::npos);
  CHECK(script.find("$empty using") != std::string::npos);
  CHECK(script.find("$outlined using") == std::string::npos);
}

TEST_CASE("claim map: the search reports whether it converged") {
  CHECK(run_claim_map(linear_spec(5.0), 1).converged);
}

TEST_CASE("heat map: malformed specs are refused") {
  HeatmapSpec h;
  CHECK_THROWS_AS(heatmap_script(h), std::invalid_argument);
  h.x_ticks = {"a", "b"};
  h.y_ticks = {"c"};
  h.cells = {{HeatmapCell{}, HeatmapCell{}}};
  CHECK_NOTHROW(heatmap_script(h));
  h.markers = {{2, 0, "outside"}};
  CHECK_THROWS_WITH_AS(heatmap_script(h), doctest::Contains("outside the 2 x 1 grid"),
                       std::invalid_argument);
  h.markers = {};
  h.cells = {{HeatmapCell{}}};
  CHECK_THROWS_AS(heatmap_script(h), std::invalid_argument);
}

TEST_CASE("tensor claims: each map's paper point is its reproduction's stated setup") {
  const std::filesystem::path root = inputs::hwprofiles_directory().parent_path();
  for (const PaperMaps& paper : paper_maps()) {
    for (const ClaimMapSpec& spec : paper.build(root)) {
      CAPTURE(spec.id);
      CHECK_NOTHROW(spec.validate());
      CHECK(spec.paper == paper.paper);
    }
  }
  // Optimus's training ratio at the paper's point is the reproduction's stated 2D/1D step
  // ratio (reproductions/optimus2021/README.md: 80.45 s / 60.56 s).
  const std::vector<ClaimMapSpec> optimus = optimus2021_maps(root);
  const MapValue v = optimus.front().evaluate(optimus.front().paper_point());
  CHECK(v.feasible);
  CHECK(v.ratio == doctest::Approx(80.45 / 60.56).epsilon(0.01));
}
