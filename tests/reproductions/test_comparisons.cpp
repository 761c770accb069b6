// A reproduction's building blocks: the sweep table and its plot, the verdicts of comparison
// rows (within and outside tolerance, not reproduced with and without evidence) and of claims.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "documents/gnuplot_plot.hpp"
#include "reproductions/claim.hpp"
#include "reproductions/comparison.hpp"
#include "reproductions/sweep.hpp"

using namespace trainsim::documents;
using namespace trainsim::reproductions;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1))
    ++n;
  return n;
}

}  // namespace

TEST_CASE("sweep: rows fill every series, the table marks missing values, the plot follows") {
  Sweep s;
  s.id = "sweep-test";
  s.title = "ratio vs hidden";
  s.x_label = "hidden size";
  s.y_label = "ratio";
  s.series = {{"a", {}}, {"b", {}}};
  s.add_row(1024, {1.25, 2.0});
  s.add_row(2048, {1.5, NAN}, "1D over memory");
  CHECK_THROWS_AS(s.add_row(4096, {1.0}), std::invalid_argument);
  s.references = {{2048, 1.48, "published"}};
  const std::string table = s.format();
  CHECK(table.find("1024") != std::string::npos);
  CHECK(table.find("1.25") != std::string::npos);
  CHECK(table.find("1D over memory") != std::string::npos);
  CHECK(table.find(" -") != std::string::npos);
  const PlotSpec p = s.plot();
  REQUIRE(p.series.size() == 2);
  CHECK(p.series[1].points.size() == 2);
  CHECK(p.markers.size() == 1);
  CHECK(count(gnuplot_script(p), " << EOD\n") == 3);  // two series and the markers
}

TEST_CASE("comparison: a row not reproduced stays failing and passes only with its evidence") {
  Comparison row{"ratio e", "paper", "x", 2.0, 0.8, 0.1, 0.2};
  row.not_reproduced = NotReproduced{"no plausible setup gives it", "closest 0.9x", true};
  CHECK(row.explained_failure());
  CHECK(row.left_out());
  CHECK(count_failures({row}) == 0);
  CHECK(std::string(row.verdict()) == "NOT REPRODUCED (below)");
  const std::string table = format_comparisons("t", {row});
  CHECK(table.find("not reproduced, ratio e: no plausible setup gives it") != std::string::npos);
  CHECK(table.find("evidence: closest 0.9x") != std::string::npos);
  // The evidence breaks: a failure.
  Comparison broken = row;
  broken.not_reproduced->evidence_holds = false;
  CHECK_FALSE(broken.explained_failure());
  CHECK(count_failures({broken}) == 1);
  CHECK(std::string(broken.verdict()) == "FAIL (its evidence no longer holds)");
  // Our figure comes within tolerance: the verdict must be revisited, so it fails too.
  Comparison back = row;
  back.predicted = 2.1;
  CHECK_FALSE(back.explained_failure());
  CHECK(count_failures({back}) == 1);
  CHECK(std::string(back.verdict()) == "FAIL (now within tolerance: revisit the verdict)");
  // A figure we could not compute fails.
  Comparison missing = row;
  missing.predicted = NAN;
  CHECK_FALSE(missing.explained_failure());
  CHECK(count_failures({missing}) == 1);
}

TEST_CASE("comparison: a row outside its tolerance fails, within it passes") {
  Comparison ok{"ratio a", "paper", "x", 2.0, 2.1, 0.1, 0.2};
  Comparison fails{"ratio b", "paper", "x", 2.0, 3.0, 0.1, 0.2};
  CHECK(count_failures({ok, fails}) == 1);
  CHECK(std::string(ok.verdict()) == "ok");
  CHECK(std::string(fails.verdict()) == "FAIL");
  CHECK(format_comparisons("t", {ok, fails}).find("FAIL") != std::string::npos);
  Comparison missing = ok;
  missing.predicted = NAN;
  CHECK(count_failures({missing}) == 1);
  // A setup its map chose: judged against its tolerance, marked, left out of its set's figures.
  Comparison chosen = ok;
  chosen.setup_from_map = true;
  CHECK(std::string(chosen.verdict()) == "ok (setup from its map)");
  CHECK(chosen.left_out());
  chosen.predicted = 3.0;
  CHECK(count_failures({chosen}) == 1);
  CHECK_FALSE(chosen.left_out());
}

TEST_CASE("claims: an outcome other than the predicted one fails unless its explanation checks") {
  Claim holds{"a holds", "src", "ours", true, true, "", "", false};
  Claim expected_not{"b does not", "src", "ours", false, false, "needs ZeRO 3", "", false};
  Claim unexpected{"c should hold", "src", "ours", false, true, "", "", false};
  CHECK(count_unexpected({holds, expected_not}) == 0);
  CHECK(count_unexpected({holds, unexpected}) == 1);
  Claim explained = unexpected;
  explained.explanation = "the transfers; check: holds with free transfers";
  explained.explanation_holds = true;
  CHECK(explained.explained());
  CHECK(count_unexpected({explained}) == 0);
  Claim check_fails = explained;
  check_fails.explanation_holds = false;  // an explanation whose check fails explains nothing
  CHECK(count_unexpected({check_fails}) == 1);
  const std::string text = format_claims("Claims", {holds, expected_not, explained, check_fails});
  CHECK(text.find("verdict: holds") != std::string::npos);
  CHECK(text.find("does not hold, as predicted: needs ZeRO 3") != std::string::npos);
  CHECK(text.find("NOT AS PREDICTED (predicted to hold, does not), explained after the run") !=
        std::string::npos);
  CHECK(text.find("FAIL: predicted to hold, does not; the explanation's check fails") !=
        std::string::npos);
}
