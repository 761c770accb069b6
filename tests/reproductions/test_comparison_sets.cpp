// Sets of comparisons (reproductions/comparison_set.hpp, reproductions/comparison_sets.hpp):
// statistics on hand-made rows (nearest-rank p90, the bias's sign, rows not reproduced left
// out, NaN), a set leaving its tolerance failing the run, partial sets, the declarations'
// consistency, the JSON keys, and the vtrain2024 reproduction's rows and split.

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "inputs/run_measurements.hpp"
#include "reports/error_statistics.hpp"
#include "reproductions/comparison_set.hpp"
#include "reproductions/comparison_sets.hpp"
#include "reproductions/reproduction.hpp"
#include "reproductions/vtrain2024.hpp"

using namespace trainsim::reproductions;
using namespace trainsim::reports;

namespace {

// A row of `set` whose signed error is `error` (published 100).
Comparison row(const std::string& set, double error) {
  return {.figure = fmt::format("figure {:+}", error),
          .source = "hand-made",
          .unit = "s",
          .published = 100.0,
          .predicted = 100.0 * (1.0 + error),
          .not_reproduced = {},
          .set = set};
}

std::vector<const Comparison*> pointers(const std::vector<Comparison>& rows) {
  std::vector<const Comparison*> out;
  for (const Comparison& c : rows)
    out.push_back(&c);
  return out;
}

ReproductionRun run_of(const std::string& name, std::vector<Comparison> rows) {
  ReproductionRun run{name, {}};
  run.report.comparisons = std::move(rows);
  return run;
}

TEST_CASE("order statistics: median of an even count, nearest-rank percentiles") {
  CHECK(median({3.0, 1.0, 2.0}) == 2.0);
  CHECK(median({4.0, 1.0, 3.0, 2.0}) == 2.5);
  CHECK(median({}) == 0.0);
  // Nearest rank: the smallest value with at least 90 % of the values at or below it.
  std::vector<double> ten{10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  CHECK(nearest_rank(ten, 0.9) == 9.0);  // rank ceil(9) = 9
  std::vector<double> eleven{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  CHECK(nearest_rank(eleven, 0.9) == 10.0);  // rank ceil(9.9) = 10
  CHECK(nearest_rank({5.0}, 0.9) == 5.0);
  CHECK(nearest_rank({2.0, 1.0}, 0.01) == 1.0);  // rank at least 1
  CHECK(nearest_rank({}, 0.9) == 0.0);
}

TEST_CASE("set statistics: mean, median, nearest-rank p90 and max of |error|, the signed bias") {
  const std::vector<Comparison> rows{
      row("s", -0.10), row("s", -0.08), row("s", -0.06), row("s", -0.04), row("s", -0.02),
      row("s", 0.01),  row("s", 0.03),  row("s", 0.05),  row("s", 0.07),  row("s", 0.30)};
  const SetStats s = set_stats(pointers(rows));
  CHECK(s.rows == 10);
  CHECK(s.left_out == 0);
  CHECK(s.mean_abs == doctest::Approx(0.076));
  CHECK(s.median_abs == doctest::Approx(0.055));  // (0.05 + 0.06) / 2
  CHECK(s.p90_abs == doctest::Approx(0.10));      // the 9th of 10, not the largest
  CHECK(s.max_abs == doctest::Approx(0.30));
  CHECK(s.bias == doctest::Approx(0.016));  // (−0.30 + 0.46) / 10: too slow on the whole
  CHECK(s.value(SetStatistic::abs_bias) == doctest::Approx(0.016));

  // Every prediction too fast (below the published time): a negative bias, its size the
  // mean |error|.
  const std::vector<Comparison> fast{row("s", -0.05), row("s", -0.02), row("s", -0.03)};
  const SetStats f = set_stats(pointers(fast));
  CHECK(f.bias == doctest::Approx(-0.10 / 3));
  CHECK(f.value(SetStatistic::abs_bias) == doctest::Approx(f.mean_abs));
  CHECK(f.median_abs == doctest::Approx(0.03));
  CHECK(f.p90_abs == doctest::Approx(0.05));

  CHECK(set_stats({}).rows == 0);
}

TEST_CASE("set statistics leave rows not reproduced out, and a NaN figure fails every bound") {
  std::vector<Comparison> rows{row("s", -0.05), row("s", 1.5)};
  rows[1].not_reproduced = NotReproduced{"no plausible setup", "a map", true};
  REQUIRE(rows[1].explained_failure());
  const SetStats s = set_stats(pointers(rows));
  CHECK(s.rows == 1);
  CHECK(s.left_out == 1);
  // A row whose setup its map chose counts beside n too, while within its tolerance.
  std::vector<Comparison> chosen{row("s", -0.05), row("s", 0.05)};
  chosen[1].setup_from_map = true;
  CHECK(set_stats(pointers(chosen)).left_out == 1);
  chosen[1].predicted = 150.0;  // +50 %: outside any tolerance, so judged and counted
  CHECK_FALSE(chosen[1].left_out());
  CHECK(s.max_abs == doctest::Approx(0.05));

  std::vector<Comparison> nan_rows{row("s", 0.01), row("s", 0.0)};
  nan_rows[1].predicted = std::numeric_limits<double>::quiet_NaN();
  const SetStats n = set_stats(pointers(nan_rows));
  CHECK(std::isnan(n.bias));
  const ComparisonSet set{"s", "", {"r"}, {{SetStatistic::max_abs, 1.0}}, {}};
  const SetResult result{&set, n, {}};
  CHECK(result.failed());
}

TEST_CASE("a set leaving its tolerance fails the run, above its aim it is marked, not failed") {
  const std::vector<ComparisonSet> sets{
      {"guarded", "", {"paper"}, {{SetStatistic::max_abs, 0.05}}, {{SetStatistic::max_abs, 0.02}}},
      {"biased", "", {"paper"}, {{SetStatistic::abs_bias, 0.05}}, {{SetStatistic::abs_bias, 0.02}}},
  };
  SUBCASE("within tolerance, above aim") {
    const std::vector<ReproductionRun> runs{
        run_of("paper", {row("guarded", -0.04), row("biased", -0.05), row("biased", 0.01)})};
    const std::vector<SetResult> results = evaluate_sets(runs, sets);
    REQUIRE(results.size() == 2);
    CHECK_FALSE(results[0].failed());
    CHECK(results[0].above_aim());
    CHECK(results[0].verdict() == "ok (> aim: max)");
    CHECK(results[1].verdict() == "ok");
    CHECK(count_set_failures(results) == 0);
    CHECK(set_verdict_line(results) == "2 sets, none outside tolerance, 1 above aim");
  }
  SUBCASE("outside: one row too far, or every row a little too fast") {
    // Every comparison passes its own 10 % tolerance; the sets do not.
    const std::vector<ReproductionRun> runs{
        run_of("paper", {row("guarded", 0.01), row("guarded", -0.06), row("biased", -0.09),
                         row("biased", -0.08), row("biased", -0.07), row("biased", -0.06)})};
    REQUIRE(count_failures(runs[0].report.comparisons) == 0);
    const std::vector<SetResult> results = evaluate_sets(runs, sets);
    CHECK(results[0].failed());
    CHECK(results[0].verdict() == "FAIL (max)");
    CHECK(results[1].failed());  // bias −7.5 %
    CHECK(results[1].verdict() == "FAIL (|bias|)");
    CHECK(count_set_failures(results) == 2);
    CHECK(set_verdict_line(results) == "2 sets, 2 OUTSIDE TOLERANCE, 2 above aim");
    const std::string table = format_set_summary("Sets", results);
    CHECK(table.find("-7.5 %") != std::string::npos);
    CHECK(table.find("FAIL (|bias|)") != std::string::npos);
  }
}

TEST_CASE("a set spanning reproductions is partial without all of them, and not judged") {
  const std::vector<ComparisonSet> sets{
      {"table", "", {"small", "large"}, {{SetStatistic::max_abs, 0.01}}, {}},
      {"other", "", {"large"}, {{SetStatistic::max_abs, 0.01}}, {}}};
  const std::vector<ReproductionRun> small{run_of("small", {row("table", -0.5)})};
  const std::vector<SetResult> partial = evaluate_sets(small, sets);
  REQUIRE(partial.size() == 1);  // "other" draws on nothing that ran
  CHECK_FALSE(partial[0].judged());
  CHECK_FALSE(partial[0].failed());
  CHECK(partial[0].verdict() == "partial (without large: not judged)");
  CHECK(set_verdict_line(partial) == "1 set, none outside tolerance, 0 above aim (1 partial)");

  const std::vector<ReproductionRun> both{run_of("small", {row("table", -0.5)}),
                                          run_of("large", {row("table", 0.0), row("other", 0.0)})};
  const std::vector<SetResult> whole = evaluate_sets(both, sets);
  REQUIRE(whole.size() == 2);
  CHECK(whole[0].stats.rows == 2);
  CHECK(whole[0].failed());
}

TEST_CASE("set declarations and reproductions must agree") {
  const std::vector<ComparisonSet> sets{{"declared", "", {"paper"}, {}, {}},
                                        {"empty", "", {"paper"}, {}, {}}};
  auto error = [&](std::vector<Comparison> rows) -> std::string {
    try {
      evaluate_sets(std::vector<ReproductionRun>{run_of("paper", std::move(rows))}, sets);
    } catch (const std::logic_error& e) {
      return e.what();
    }
    return "(no error)";
  };
  CHECK(error({row("", 0.0)}) == "paper: 'figure +0' belongs to no set");
  CHECK(error({row("undeclared", 0.0)}) ==
        "paper: 'figure +0' names set 'undeclared', which is not declared");
  CHECK(error({row("declared", 0.0)}) == "set 'empty' has no rows");
  const std::vector<ComparisonSet> elsewhere{{"declared", "", {"another"}, {}, {}}};
  CHECK_THROWS_WITH_AS(
      evaluate_sets(std::vector<ReproductionRun>{run_of("paper", {row("declared", 0.0)})},
                    elsewhere),
      "paper: 'figure +0' is in set 'declared', which does not list paper", std::logic_error);
}

TEST_CASE("every declared set: known reproductions, the aims of issue 16, tolerances not below") {
  std::set<std::string> names;
  for (const ComparisonSet& set : comparison_sets()) {
    CAPTURE(set.name);
    CHECK(names.insert(set.name).second);
    CHECK_FALSE(set.what.empty());
    for (const std::string& r : set.reproductions) {
      CHECK(std::any_of(reproductions().begin(), reproductions().end(),
                        [&](const Reproduction& known) { return known.name == r; }));
    }
    // Every set's signed bias aims within ±2 %.
    CHECK(std::any_of(set.aim.begin(), set.aim.end(), [](const SetBound& b) {
      return b.statistic == SetStatistic::abs_bias && b.limit == 0.02;
    }));
    // The tolerance bounds what the aim bounds, never tighter (a guard below the target would
    // fail work that moves within it).
    REQUIRE(set.tolerance.size() == set.aim.size());
    for (std::size_t i = 0; i < set.aim.size(); ++i) {
      CHECK(set.tolerance[i].statistic == set.aim[i].statistic);
      CHECK(set.tolerance[i].limit >= set.aim[i].limit);
    }
  }
  // Issue 16's targets, as stated.
  auto aim_of = [](const char* name, SetStatistic statistic) -> double {
    for (const ComparisonSet& set : comparison_sets()) {
      if (set.name != name) continue;
      for (const SetBound& b : set.aim) {
        if (b.statistic == statistic) return b.limit;
      }
    }
    return NAN;
  };
  CHECK(aim_of(set_names::kKorthikantiTable5Times, SetStatistic::mean_abs) == 0.03);
  CHECK(aim_of(set_names::kKorthikantiTable5Times, SetStatistic::max_abs) == 0.05);
  CHECK(aim_of(set_names::kKorthikantiTable4, SetStatistic::max_abs) == 0.05);
  CHECK(aim_of(set_names::kKorthikantiDp8, SetStatistic::max_abs) == 0.05);
  CHECK(aim_of(set_names::kVtrainHeldOut, SetStatistic::median_abs) == 0.05);
  CHECK(aim_of(set_names::kVtrainHeldOut, SetStatistic::p90_abs) == 0.12);
}

TEST_CASE("validate --json: reproductions, sets with their statistics and bounds, failures") {
  const std::vector<ComparisonSet> sets{{"s",
                                         "what it is",
                                         {"paper"},
                                         {{SetStatistic::max_abs, 0.05}},
                                         {{SetStatistic::max_abs, 0.02}}}};
  const std::vector<ReproductionRun> runs{run_of("paper", {row("s", -0.04), row("s", 0.0)})};
  const std::vector<SetResult> results = evaluate_sets(runs, sets);
  const nlohmann::ordered_json j = validation_json(runs, results);
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items())
    keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"reproductions", "sets", "failures"});
  keys.clear();
  for (const auto& [key, value] : j["reproductions"][0].items())
    keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"name", "comparisons", "outside_tolerance",
                                         "not_reproduced", "set_rows", "claims",
                                         "claims_not_as_predicted"});
  keys.clear();
  const nlohmann::ordered_json& set = j["sets"][0];
  for (const auto& [key, value] : set.items())
    keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"name", "what", "reproductions", "judged",
                                         "missing_reproductions", "rows", "left_out",
                                         "mean_abs_error", "median_abs_error", "p90_abs_error",
                                         "max_abs_error", "bias", "tolerance", "aim",
                                         "outside_tolerance", "above_aim", "verdict"});
  CHECK(set["rows"] == 2);
  CHECK(set["bias"].get<double>() == doctest::Approx(-0.02));
  CHECK(set["tolerance"]["max_abs_error"] == 0.05);
  CHECK(set["above_aim"] == nlohmann::ordered_json::array({"max_abs_error"}));
  CHECK(j["failures"]["sets"] == 0);
  CHECK(j["failures"]["comparisons_and_claims"] == 0);
}

TEST_CASE("vtrain2024: every vendored row, every 5th held out, in the two sets") {
  const std::filesystem::path root(TRAINSIM_SOURCE_ROOT);
  const ReproductionReport report = run_vtrain2024(root);
  REQUIRE(report.set_rows.size() == 1440);
  CHECK(report.comparisons.empty());
  std::size_t held = 0;
  for (std::size_t i = 0; i < report.set_rows.size(); ++i) {
    const Comparison& c = report.set_rows[i];
    CAPTURE(c.figure);
    const bool is_held = c.set == set_names::kVtrainHeldOut;
    CHECK(is_held == (i % 5 == 4));
    CHECK((is_held || c.set == set_names::kVtrainFitting));
    CHECK(std::isfinite(c.predicted));
    CHECK(c.predicted > 0.0);
    held += is_held ? 1 : 0;
  }
  CHECK(held == 288);
  // The figures of the vendored file, line for line.
  const trainsim::inputs::RunMeasurements runs =
      trainsim::inputs::read_run_measurements(root / kVtrainDataFile);
  CHECK(report.set_rows.front().published == doctest::Approx(runs.rows.front().time.ms()));
  CHECK(report.set_rows.front().figure.rfind("line 2: ", 0) == 0);
  REQUIRE(report.csv_tables.size() == 1);
  CHECK(report.csv_tables[0].id == "rows");
  CHECK(report.csv_tables[0].rows.size() == 1440);
  CHECK(report.csv_tables[0].rows[4].back() == "held out");
  CHECK(report.csv_tables[0].rows[0].back() == "fitting");
  // Digests by class: 8 hidden × TP classes, 4 micro batches, each row counted once.
  REQUIRE(report.tables.size() == 2);
  CHECK(report.tables[0].rows.size() == 8);
  CHECK(report.tables[1].rows.size() == 4);
  const std::vector<ReproductionRun> runs_done{{"vtrain2024", report}};
  const std::vector<SetResult> sets = evaluate_sets(runs_done);
  REQUIRE(sets.size() == 2);
  CHECK(sets[0].stats.rows == 1152);
  CHECK(sets[1].stats.rows == 288);
}

}  // namespace
