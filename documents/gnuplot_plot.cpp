#include "documents/gnuplot_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>

#include "documents/atomic_file.hpp"
#include "documents/subprocess.hpp"

namespace trainsim::documents {
namespace {

// Colour-blind-safe line colours (Okabe and Ito), cycled; fixed so plots do not depend on
// gnuplot's default palette.
constexpr std::string_view kPalette[] = {"#0072b2", "#d55e00", "#009e73",
                                         "#cc79a7", "#e69f00", "#56b4e9"};

// Shortest text that reads back as the same double: the data gnuplot sees is exact.
std::string number(double v) {
  return fmt::format("{}", v);
}

// A series' finite points and, beside them, their bar ends (empty without bars).
struct FiniteSeries {
  std::vector<PlotPoint> points;
  std::vector<double> x_high;
};

FiniteSeries finite_series(const PlotSeries& series) {
  const bool bars = !series.x_high.empty();
  if (bars && series.x_high.size() != series.points.size()) {
    throw std::invalid_argument(
        fmt::format("plot series '{}': {} bar ends for {} points (one per point)", series.name,
                    series.x_high.size(), series.points.size()));
  }
  FiniteSeries out;
  for (std::size_t i = 0; i < series.points.size(); ++i) {
    const PlotPoint& p = series.points[i];
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
    if (bars && !std::isfinite(series.x_high[i])) continue;
    out.points.push_back(p);
    if (bars) out.x_high.push_back(series.x_high[i]);
  }
  return out;
}

void check_log_axes(const PlotSpec& plot, const std::vector<PlotPoint>& points) {
  for (const PlotPoint& p : points) {
    if (plot.log_x && p.x <= 0.0) {
      throw std::invalid_argument(
          fmt::format("plot '{}': x = {} on a log x axis (x must be > 0)", plot.title, p.x));
    }
    if (plot.log_y && p.y <= 0.0) {
      throw std::invalid_argument(
          fmt::format("plot '{}': y = {} on a log y axis (y must be > 0)", plot.title, p.y));
    }
  }
}

// gnuplot warns on stderr (which render_svg treats as an error) when an axis has no span, e.g.
// a Pareto front of one point; such an axis gets an explicit range around its one value.
std::string range_for_flat_axis(char axis, const std::vector<double>& values, bool log) {
  if (values.empty()) return {};
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  if (*lo != *hi) return {};
  const double v = *lo;
  if (log) return fmt::format("set {}range [{}:{}]\n", axis, number(v / 2.0), number(v * 2.0));
  const double half = v == 0.0 ? 1.0 : std::abs(v) * 0.05;
  return fmt::format("set {}range [{}:{}]\n", axis, number(v - half), number(v + half));
}

std::string datablock(const std::string& name, const std::vector<PlotPoint>& points,
                      const std::vector<double>& x_high = {}) {
  std::string out = fmt::format("${} << EOD\n", name);
  for (std::size_t i = 0; i < points.size(); ++i) {
    out += x_high.empty() ? fmt::format("{} {}\n", number(points[i].x), number(points[i].y))
                          : fmt::format("{} {} {}\n", number(points[i].x), number(points[i].y),
                                        number(x_high[i]));
  }
  return out + "EOD\n";
}

}  // namespace

std::string gnuplot_script(const PlotSpec& plot) {
  std::string script =
      "set terminal svg size 760,400 fixed font 'DejaVu Sans,11' noenhanced "
      "background '#ffffff'\n"
      "set encoding utf8\n";
  script += fmt::format("set title {}\nset xlabel {}\nset ylabel {}\n", gnuplot_quoted(plot.title),
                        gnuplot_quoted(plot.x_label), gnuplot_quoted(plot.y_label));
  script += "set key outside right top vertical Left reverse noautotitle\nset grid\n";
  std::vector<double> xs;
  std::vector<double> ys;
  std::vector<double> bar_ends;  // in the x range, not among a log axis's ticks
  std::string data;
  std::string plots;
  int drawn = 0;
  for (std::size_t i = 0; i < plot.series.size(); ++i) {
    const FiniteSeries finite = finite_series(plot.series[i]);
    const std::vector<PlotPoint>& points = finite.points;
    if (points.empty()) continue;
    check_log_axes(plot, points);
    for (std::size_t k = 0; k < points.size(); ++k) {
      xs.push_back(points[k].x);
      ys.push_back(points[k].y);
      if (!finite.x_high.empty()) {
        check_log_axes(plot, {{finite.x_high[k], points[k].y}});
        bar_ends.push_back(finite.x_high[k]);
      }
    }
    const std::string name = fmt::format("series{}", i);
    data += datablock(name, points, finite.x_high);
    // With bars, gnuplot's xerrorlines reads x, y, x low and x high: the bar runs from the
    // point itself to its end.
    plots += fmt::format(
        "{}${} using {} with {} linewidth 2 pointtype 7 pointsize 0.8 linecolor rgb '{}' "
        "title {}",
        plots.empty() ? "" : ", ", name, finite.x_high.empty() ? "1:2" : "1:2:1:3",
        finite.x_high.empty() ? "linespoints" : "xerrorlines", kPalette[i % std::size(kPalette)],
        gnuplot_quoted(plot.series[i].name));
    ++drawn;
  }
  std::vector<PlotPoint> marks;
  for (const PlotMarker& m : plot.markers) {
    if (std::isfinite(m.at.x) && std::isfinite(m.at.y)) marks.push_back(m.at);
  }
  if (!marks.empty()) {
    check_log_axes(plot, marks);
    data += datablock("markers", marks);
    plots += fmt::format(
        "{}$markers using 1:2 with points pointtype 6 pointsize 1.6 linecolor rgb '#000000' {}",
        plots.empty() ? "" : ", ",
        plot.markers_title.empty() ? "notitle" : "title " + gnuplot_quoted(plot.markers_title));
    int label = 0;
    for (const PlotMarker& m : plot.markers) {
      if (!std::isfinite(m.at.x) || !std::isfinite(m.at.y)) continue;
      script += fmt::format("set label {} {} at {},{} offset character 1.2,0.6 front\n", ++label,
                            gnuplot_quoted(m.label), number(m.at.x), number(m.at.y));
    }
    ++drawn;
  }
  if (drawn == 0) {
    throw std::invalid_argument(fmt::format("plot '{}': no finite point to draw", plot.title));
  }
  // The ranges see the markers too; the log axis's ticks only the series' x values.
  std::vector<double> range_xs = xs;
  range_xs.insert(range_xs.end(), bar_ends.begin(), bar_ends.end());
  for (const PlotPoint& p : marks) {
    range_xs.push_back(p.x);
    ys.push_back(p.y);
  }
  if (plot.log_x) {
    std::sort(xs.begin(), xs.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
    script += "set logscale x 2\nset xtics (";
    for (std::size_t i = 0; i < xs.size(); ++i)
      script += fmt::format("{}'{:g}' {}", i == 0 ? "" : ", ", xs[i], number(xs[i]));
    script += ")\n";
    // A little room either side so the end points (and bars) are not drawn on the frame.
    double lo = xs.front();
    double hi = xs.back();
    for (const double end : bar_ends) {
      lo = std::min(lo, end);
      hi = std::max(hi, end);
    }
    script += fmt::format("set xrange [{}:{}]\n", number(lo / 1.15), number(hi * 1.15));
  }
  if (!plot.log_x) script += range_for_flat_axis('x', range_xs, false);
  script += range_for_flat_axis('y', ys, plot.log_y);
  if (plot.log_y) script += "set logscale y 10\nset format y '%.0e'\n";
  script += "set offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05\n";
  return script + data + "plot " + plots + "\n";
}

std::string gnuplot_quoted(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') out += '\'';
    out += c == '\n' ? ' ' : c;
  }
  return out + "'";
}

std::string render_svg(const PlotSpec& plot) {
  return render_gnuplot_svg(gnuplot_script(plot), plot.title);
}

std::string render_gnuplot_svg(const std::string& script, const std::string& title) {
  TemporaryDirectory dir("trainsim-gnuplot");
  const std::filesystem::path script_file = dir.path() / "plot.gp";
  write_atomically(script_file, script);
  const std::filesystem::path svg_file = dir.path() / "plot.svg";
  const std::filesystem::path errors_file = dir.path() / "stderr.txt";
  ProgramExit exit;
  try {
    // --default-settings: no system or user init file (~/.gnuplot) changes the drawing.
    exit =
        run_program({"gnuplot", "--default-settings", script_file.string()}, svg_file, errors_file);
  } catch (const ProgramNotFound&) {
    throw std::runtime_error(
        fmt::format("plot '{}': gnuplot was not found on PATH; install Debian's gnuplot-nox "
                    "(scripts/install-deps does)",
                    title));
  }
  const std::string errors = read_file(errors_file);
  if (!exit.exited || exit.status != 0 || !errors.empty()) {
    throw std::runtime_error(
        fmt::format("plot '{}': gnuplot {} {}{}{}", title,
                    exit.exited ? "exited with status" : "was killed by signal", exit.status,
                    errors.empty() ? "" : ", saying: ", errors));
  }
  std::string svg = read_file(svg_file);
  // The one line that names gnuplot's version: dropped, so that a patch release of gnuplot
  // that draws the same plot does not make the committed file differ.
  const std::size_t desc = svg.find("<desc>Produced by GNUPLOT");
  if (desc != std::string::npos) {
    const std::size_t end = svg.find('\n', desc);
    svg.erase(desc, end == std::string::npos ? std::string::npos : end - desc + 1);
  }
  if (svg.find("</svg>") == std::string::npos) {
    throw std::runtime_error(fmt::format("plot '{}': gnuplot wrote no complete SVG", title));
  }
  return svg;
}

void write_svg(const std::filesystem::path& path, const PlotSpec& plot) {
  write_atomically(path, render_svg(plot));
}

}  // namespace trainsim::documents
