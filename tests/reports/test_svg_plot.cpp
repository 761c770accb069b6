// The SVG line plot and the sweep table: well-formed XML, one polyline per series,
// deterministic bytes, written atomically; and the comparison table's explained shortfalls.
#include <doctest/doctest.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "reports/comparison.hpp"
#include "reports/svg_plot.hpp"
#include "reports/sweep.hpp"

using namespace trainsim::reports;

namespace {

// A strict little checker for the XML subset the writer emits: a declaration, elements with
// quoted attributes, text without raw '<' or '&' outside entities; every element closed in
// order and one root. Returns an empty string when well-formed, else what is wrong.
std::string xml_problem(const std::string& doc) {
  std::vector<std::string> open;
  std::size_t i = 0;
  int roots = 0;
  if (doc.rfind("<?xml ", 0) == 0) i = doc.find("?>") + 2;
  while (i < doc.size()) {
    if (doc[i] == '&') {
      const std::size_t end = doc.find(';', i);
      if (end == std::string::npos) return "unterminated entity";
      const std::string entity = doc.substr(i, end - i + 1);
      if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;")
        return "unknown entity " + entity;
      i = end + 1;
      continue;
    }
    if (doc[i] != '<') {
      if (open.empty() && !std::isspace(static_cast<unsigned char>(doc[i])))
        return "text outside the root";
      ++i;
      continue;
    }
    const std::size_t end = doc.find('>', i);
    if (end == std::string::npos) return "unterminated tag";
    std::string tag = doc.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.find('<') != std::string::npos) return "'<' inside a tag";
    if (!tag.empty() && tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name) return "mismatched </" + name + ">";
      open.pop_back();
      continue;
    }
    const bool self_closing = !tag.empty() && tag.back() == '/';
    if (self_closing) tag.pop_back();
    const std::string name = tag.substr(0, tag.find_first_of(" \n"));
    if (name.empty()) return "empty tag name";
    // Attributes: name="value" pairs, quotes balanced.
    std::size_t quotes = 0;
    for (const char c : tag)
      quotes += c == '"' ? 1 : 0;
    if (quotes % 2 != 0) return "unbalanced quotes in <" + name + ">";
    if (open.empty()) ++roots;
    if (!self_closing) open.push_back(name);
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  if (roots != 1) return "expected one root element";
  return "";
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

PlotSpec example(bool log_x) {
  PlotSpec p;
  p.title = "speedup <2D> & 1D \"q = 8\"";
  p.x_label = "hidden size";
  p.y_label = "speedup";
  p.log_x = log_x;
  p.series = {{"training", {{1024, 0.9}, {2048, 1.1}, {4096, 1.3}, {8192, 1.6}}},
              {"max batch", {{1024, 2.0}, {2048, NAN}, {4096, 3.5}}},
              {"flat", {{1024, 1.0}, {8192, 1.0}}}};
  p.markers = {{{4096, 1.48}, "published 1.48x"}};
  return p;
}

}  // namespace

TEST_CASE("svg plot: well-formed, one polyline per series, escaped text, deterministic") {
  for (const bool log_x : {false, true}) {
    CAPTURE(log_x);
    const std::string svg = render_svg(example(log_x));
    CHECK(xml_problem(svg).empty());
    CHECK(count(svg, "<polyline") == 3);
    // NaN points are left out: 4 + 2 + 2 dots, plus one marker circle.
    CHECK(count(svg, "<circle cx=") == 8);
    CHECK(count(svg, "class=\"marker\"") == 1);
    CHECK(svg.find("speedup &lt;2D&gt; &amp; 1D &quot;q = 8&quot;") != std::string::npos);
    CHECK(svg.find("<2D>") == std::string::npos);
    CHECK(svg == render_svg(example(log_x)));
  }
  // The log axis puts its ticks at the data's x values.
  const std::string log_svg = render_svg(example(true));
  for (const char* tick : {">1024<", ">2048<", ">4096<", ">8192<"})
    CHECK(log_svg.find(tick) != std::string::npos);
  CHECK(log_svg != render_svg(example(false)));
}

TEST_CASE("svg plot: the checker itself rejects broken XML") {
  CHECK_FALSE(xml_problem("<svg><g></svg>").empty());
  CHECK_FALSE(xml_problem("<svg>a & b</svg>").empty());
  CHECK_FALSE(xml_problem("<svg x=\"1></svg>").empty());
  CHECK_FALSE(xml_problem("<a/><b/>").empty());
  CHECK(xml_problem("<?xml version=\"1.0\"?>\n<a x=\"1\"><b/>t &amp; u</a>\n").empty());
}

TEST_CASE("svg plot: errors for nothing to draw and x <= 0 on a log axis") {
  PlotSpec empty;
  empty.title = "empty";
  empty.series = {{"nothing", {{1.0, NAN}}}};
  CHECK_THROWS_AS(render_svg(empty), std::invalid_argument);
  PlotSpec negative = example(true);
  negative.series[0].points.push_back({0.0, 1.0});
  CHECK_THROWS_AS(render_svg(negative), std::invalid_argument);
}

TEST_CASE("svg plot: written atomically, the same bytes as rendered") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "trainsim-svg-test";
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / "plot.svg";
  write_svg(file, example(true));
  std::ifstream in(file, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  CHECK(bytes.str() == render_svg(example(true)));
  std::filesystem::remove_all(dir);
}

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
  CHECK(count(render_svg(p), "<polyline") == 2);
}

TEST_CASE("comparison: an explained shortfall is reported as such and is not a failure") {
  Comparison ok{"ratio a", "paper", "x", 2.0, 2.1, 0.1, 0.2, ""};
  Comparison fails{"ratio b", "paper", "x", 2.0, 3.0, 0.1, 0.2, ""};
  Comparison explained{"ratio c", "paper", "x", 2.0, 5.0, 0.1, 0.2, "the paper measured X",
                       4.0,       6.0};
  CHECK(count_failures({ok, fails, explained}) == 1);
  CHECK(count_failures({ok, explained}) == 0);
  CHECK(explained.explained_shortfall());
  CHECK_FALSE(fails.explained_shortfall());
  const std::string table = format_comparisons("t", {ok, fails, explained});
  CHECK(table.find("FAIL") != std::string::npos);
  CHECK(table.find("SHORTFALL") != std::string::npos);
  CHECK(table.find("shortfall, ratio c (explained for 4 to 6 x): the paper measured X") !=
        std::string::npos);
  // Outside the band the explanation covers, or not a number, the row fails.
  Comparison beyond = explained;
  beyond.predicted = 7.0;
  CHECK_FALSE(beyond.explained_shortfall());
  CHECK(count_failures({beyond}) == 1);
  Comparison missing = explained;
  missing.predicted = NAN;
  CHECK_FALSE(missing.explained_shortfall());
  CHECK(count_failures({missing}) == 1);
  // Within tolerance, an explanation changes nothing.
  Comparison back{"ratio d", "paper", "x", 2.0, 2.1, 0.1, 0.2, "was off"};
  CHECK_FALSE(back.explained_shortfall());
  CHECK(count_failures({back}) == 0);
}
