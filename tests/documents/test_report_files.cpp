// Generated reports: marked README blocks (text outside kept byte-for-byte, errors naming
// file:line), CSV and Markdown tables, gnuplot plots (deterministic bytes), and the check that
// committed files are what the code regenerates.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "documents/generated_blocks.hpp"
#include "documents/gnuplot_plot.hpp"
#include "documents/report_content.hpp"
#include "documents/report_files.hpp"
#include "documents/report_table.hpp"
#include "documents/subprocess.hpp"

using namespace trainsim::documents;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1))
    ++n;
  return n;
}

PlotSpec example() {
  PlotSpec p;
  p.title = "speedup vs hidden, it's <2D> & \"1D\"";
  p.x_label = "hidden size";
  p.y_label = "speedup (×)";
  p.log_x = true;
  p.series = {{"training", {{1024, 1.02}, {2048, 1.27}, {4096, NAN}, {8192, 1.93}}},
              {"inference", {{1024, 1.32}, {2048, 1.67}}}};
  p.markers = {{{2048, 1.48}, "published 1.48×"}};
  p.markers_title = "published";
  return p;
}

// The SVG, or an empty string (with a message) where gnuplot is not installed: CI installs
// it (scripts/install-deps), a bare development machine may not have it.
std::string svg_or_skip(const PlotSpec& p) {
  try {
    return render_svg(p);
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).find("gnuplot was not found") == std::string::npos) throw;
    MESSAGE("skipped: gnuplot is not installed (Debian gnuplot-nox): ", e.what());
    return {};
  }
}

ReportContent tiny_content() {
  ReportContent c;
  ReportTable t{"table", {"x", "y"}, {}};
  t.add_row({"1", "2.5"});
  t.add_row({"2", "a, \"b\""});
  c.add_table(t, "After the table.\n");
  c.add_block("summary", "all good");
  return c;
}

}  // namespace

TEST_CASE("marked text: blocks are rewritten, every byte outside them is kept") {
  const std::string readme =
      "# title\r\nprose with a number 1.27\n\n"
      "<!-- trainsim:generated r:table -->\nold | table\n<!-- trainsim:end -->\n"
      "middle\n<!-- trainsim:generated r:summary -->\n<!-- trainsim:end -->\nno newline at end";
  const MarkedText marked = parse_marked_text(readme, "README.md", "r");
  REQUIRE(marked.segments.size() == 5);
  CHECK(marked.segments[1].generated);
  CHECK(marked.segments[1].text == "table");
  CHECK(marked.segments[1].line == 4);
  const std::string out =
      fill_marked_text(marked, {{"table", "| new |\n"}, {"summary", "ok\n"}}, "README.md");
  CHECK(out ==
        "# title\r\nprose with a number 1.27\n\n"
        "<!-- trainsim:generated r:table -->\n\n| new |\n\n<!-- trainsim:end -->\n"
        "middle\n<!-- trainsim:generated r:summary -->\n\nok\n\n<!-- trainsim:end -->\n"
        "no newline at end");
  // Filling the output again gives the same bytes: regenerating is a fixed point.
  CHECK(fill_marked_text(parse_marked_text(out, "README.md", "r"),
                         {{"table", "| new |\n"}, {"summary", "ok\n"}}, "README.md") == out);
  // Without markers, the text is the text.
  CHECK(fill_marked_text(parse_marked_text("a\nb", "f", "r"), {}, "f") == "a\nb");
}

TEST_CASE("marked text: errors name the file, the line and what is valid") {
  const std::string unknown = "x\n<!-- trainsim:generated r:nope -->\n<!-- trainsim:end -->\n";
  CHECK(error_of([&] {
          fill_marked_text(parse_marked_text(unknown, "reports/r/README.md", "r"),
                           {{"table", "t\n"}, {"summary", "s\n"}}, "reports/r/README.md");
        }) == "reports/r/README.md:2: unknown generated block 'nope'; known: summary, table");
  CHECK(error_of([] {
          parse_marked_text("a\n\n<!-- trainsim:generated r:t -->\nstale\n", "R.md", "r");
        }) == "R.md:3: generated block not terminated (no '<!-- trainsim:end -->' after it)");
  CHECK(error_of([] { parse_marked_text("a\n<!-- trainsim:end -->\n", "R.md", "r"); }) ==
        "R.md:2: '<!-- trainsim:end -->' outside a generated block");
  CHECK(error_of([] {
          parse_marked_text("<!-- trainsim:generated r:a -->\n<!-- trainsim:generated r:b -->\n",
                            "R.md", "r");
        }) == "R.md:2: a generated block begins inside the block opened at line 1");
  CHECK(error_of([] {
          parse_marked_text("<!-- trainsim:generated other:a -->\n<!-- trainsim:end -->\n", "R.md",
                            "r");
        }) == "R.md:1: a block of report 'other' in the README of 'r'");
  CHECK(error_of([] { parse_marked_text("<!-- trainsim:generate r:a -->\n", "R.md", "r"); })
            .find("R.md:1: malformed marker '<!-- trainsim:generate r:a -->'; valid: "
                  "'<!-- trainsim:generated r:BLOCK -->'") == 0);
  CHECK(error_of([] {
          parse_marked_text("<!-- trainsim:generated r -->\n", "R.md", "r");
        }).find("R.md:1: malformed marker") == 0);
}

TEST_CASE("tables: CSV quoting (RFC 4180) and Markdown escaping") {
  CHECK(csv_field("plain 1.5") == "plain 1.5");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
  CHECK(csv_field(" padded") == "\" padded\"");
  CHECK(csv_field("") == "");
  ReportTable t{"t", {"name", "value"}, {}};
  t.add_row({"a|b", "1,5"});
  CHECK_THROWS_AS(t.add_row({"one cell"}), std::invalid_argument);
  CHECK(t.csv() == "name,value\na|b,\"1,5\"\n");
  CHECK(t.markdown() == "| name | value |\n|---|---|\n| a\\|b | 1,5 |\n");
}

TEST_CASE("report content: block names are unique and tables become blocks and CSV files") {
  ReportContent c = tiny_content();
  CHECK(c.block_order == std::vector<std::string>{"table", "summary"});
  CHECK(c.blocks.at("table") ==
        "| x | y |\n|---|---|\n| 1 | 2.5 |\n| 2 | a, \"b\" |\n\nAfter the table.\n");
  CHECK(c.blocks.at("summary") == "all good\n");
  CHECK_THROWS_AS(c.add_block("summary", "again"), std::invalid_argument);
  CHECK_THROWS_AS(c.add_block("bad name", "x"), std::invalid_argument);
  CHECK(fenced("a  b") == "```text\na  b\n```\n");
}

TEST_CASE("gnuplot script: data inline and exact, quoted text, log-axis and empty-plot errors") {
  const std::string script = gnuplot_script(example());
  CHECK(script.find("set terminal svg size 760,400 fixed font 'DejaVu Sans,11'") == 0);
  CHECK(script.find("set title 'speedup vs hidden, it''s <2D> & \"1D\"'") != std::string::npos);
  CHECK(script.find("$series0 << EOD\n1024 1.02\n2048 1.27\n8192 1.93\nEOD\n") !=
        std::string::npos);  // the NaN point is left out
  CHECK(script.find("set logscale x 2\nset xtics ('1024' 1024, '2048' 2048, '4096' 4096, "
                    "'8192' 8192)") == std::string::npos);  // 4096 has no finite point
  CHECK(script.find("set xtics ('1024' 1024, '2048' 2048, '8192' 8192)") != std::string::npos);
  CHECK(script.find("set label 1 'published 1.48×' at 2048,1.48") != std::string::npos);
  CHECK(script.find("linecolor rgb '#000000' title 'published'") != std::string::npos);
  PlotSpec untitled = example();
  untitled.markers_title.clear();  // markers without a legend entry
  CHECK(gnuplot_script(untitled).find("linecolor rgb '#000000' notitle") != std::string::npos);
  PlotSpec bad = example();
  bad.series[0].points.push_back({0.0, 1.0});
  CHECK(error_of([&] { gnuplot_script(bad); }).find("x = 0 on a log x axis") != std::string::npos);
  PlotSpec log_y = example();
  log_y.log_y = true;
  log_y.series[1].points.push_back({16384, -1.0});
  CHECK(error_of([&] { gnuplot_script(log_y); }).find("y = -1 on a log y axis") !=
        std::string::npos);
  PlotSpec empty;
  empty.title = "nothing";
  empty.series = {{"a", {{1.0, NAN}}}};
  CHECK(error_of([&] { gnuplot_script(empty); }) == "plot 'nothing': no finite point to draw");
}

TEST_CASE("gnuplot plot: an SVG with a line per series, the same bytes twice, written atomically") {
  const std::string svg = svg_or_skip(example());
  if (svg.empty()) return;
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(svg.find("Produced by GNUPLOT") == std::string::npos);  // the version line is dropped
  CHECK(svg.find("inference") != std::string::npos);
  CHECK(svg.find("published 1.48×") != std::string::npos);
  CHECK(svg.find("it's &lt;2D> &amp;") != std::string::npos);  // gnuplot escapes & and <
  CHECK(count(svg, "stroke='rgb(  0, 114, 178)'") >= 1);       // the first series' colour
  CHECK(render_svg(example()) == svg);
  const TemporaryDirectory dir("trainsim-test-plot");
  write_svg(dir.path() / "p.svg", example());
  CHECK(read_file(dir.path() / "p.svg") == svg);
  // One point (a Pareto front of one run): gnuplot would warn of an empty range, which
  // render_svg treats as an error; the script gives such an axis a range around its value.
  PlotSpec one;
  one.title = "one point";
  one.series = {{"front", {{2.5, 61315.4}}}};
  one.markers = {{{2.5, 61315.4}, "shortest"}};
  CHECK(gnuplot_script(one).find("set xrange [2.375:2.625]\nset yrange [") != std::string::npos);
  CHECK(render_svg(one).find("</svg>") != std::string::npos);
}

TEST_CASE("gnuplot plot: horizontal bars from each point to its end, in the x range") {
  PlotSpec bars;
  bars.title = "p50 and p90";
  bars.series = {{"front",
                  {{10.0, 300.0}, {12.0, 200.0}, {NAN, 100.0}, {15.0, 50.0}},
                  {11.0, 13.5, 20.0, INFINITY}}};
  // The NaN point and the point whose bar end is infinite are left out, with their ends.
  const std::string script = gnuplot_script(bars);
  CHECK(script.find("$series0 << EOD\n10 300 11\n12 200 13.5\nEOD\n") != std::string::npos);
  CHECK(script.find("$series0 using 1:2:1:3 with xerrorlines linewidth 2") != std::string::npos);
  bars.log_x = true;  // the range reaches the last bar's end, the ticks only the points
  CHECK(gnuplot_script(bars).find("set xtics ('10' 10, '12' 12)\nset xrange [8.695652173913045:"
                                  "15.524999999999999]") != std::string::npos);
  PlotSpec short_ends = bars;
  short_ends.series[0].x_high.pop_back();
  CHECK(error_of([&] { gnuplot_script(short_ends); }) ==
        "plot series 'front': 3 bar ends for 4 points (one per point)");
  const std::string svg = svg_or_skip(bars);
  if (!svg.empty()) CHECK(svg.find("</svg>") != std::string::npos);
}

TEST_CASE(
    "report files: a new README holds every block, the check finds changed, missing and "
    "stale files") {
  PlotSpec plot = example();
  plot.title = "tiny";
  ReportContent content = tiny_content();
  content.add_plot("plot", plot);
  std::string svg = svg_or_skip(plot);
  const bool with_plots = !svg.empty();
  if (!with_plots) content.plots.clear();
  const ReportFiles files = render_report("tiny", "a tiny report", content, "", "README.md");
  CHECK(files.size() == (with_plots ? 3u : 2u));
  CHECK(files.at("README.md")
            .find("# tiny — a tiny report\n\n<!-- trainsim:generated "
                  "tiny:table -->\n\n| x | y |") == 0);
  CHECK(files.at("table.csv") == "x,y\n1,2.5\n2,\"a, \"\"b\"\"\"\n");
  // Rendering over its own README again gives the same files (deterministic, a fixed point).
  CHECK(render_report("tiny", "a tiny report", content, files.at("README.md"), "README.md") ==
        files);

  const TemporaryDirectory dir("trainsim-test-report");
  write_report_files(files, dir.path());
  CHECK(compare_report_files(files, dir.path()).empty());
  {
    std::ofstream edit(dir.path() / "table.csv", std::ios::trunc);
    edit << "x,y\n1,2.6\n2,\"a, \"\"b\"\"\"\n";
  }
  std::ofstream(dir.path() / "old.svg") << "<svg/>";
  std::filesystem::remove(dir.path() / "README.md");
  const std::vector<ReportDifference> d = compare_report_files(files, dir.path());
  REQUIRE(d.size() == 3);
  CHECK(d[0].file == "README.md");
  CHECK(d[0].what == "missing");
  CHECK(d[1].file == "table.csv");
  CHECK(d[1].what == "line 2: committed '1,2.6', regenerated '1,2.5'");
  CHECK(d[2].file == "old.svg");
  CHECK(d[2].what == "committed but not generated (stale)");
}
