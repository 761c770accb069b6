#include "reports/svg_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "reports/atomic_file.hpp"

namespace trainsim::reports {
namespace {

// Canvas and plot area, in SVG user units. The legend sits right of the plot area.
constexpr double kWidth = 760.0;
constexpr double kHeight = 400.0;
constexpr double kLeft = 70.0;
constexpr double kRight = 570.0;
constexpr double kTop = 40.0;
constexpr double kBottom = 340.0;
constexpr std::array<const char*, 6> kPalette{"#1f77b4", "#d62728", "#2ca02c",
                                              "#ff7f0e", "#9467bd", "#8c564b"};

std::string escaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string coordinate(double v) {
  return fmt::format("{:.2f}", v);
}

struct Range {
  double lo = 0.0;
  double hi = 0.0;
};

// A 1-2-5 step giving about five intervals over `r`, and `r` widened to whole steps.
double nice_step(Range r) {
  const double raw = (r.hi - r.lo) / 5.0;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0}) {
    if (m * magnitude >= raw) return m * magnitude;
  }
  return 10.0 * magnitude;
}

Range widened(Range r) {
  if (r.hi - r.lo < 1e-12 * std::max(1.0, std::fabs(r.hi))) {
    const double pad = std::max(0.5, 0.1 * std::fabs(r.lo));
    return {r.lo - pad, r.hi + pad};
  }
  return r;
}

class Axes {
 public:
  Axes(const PlotSpec& plot, Range x, Range y) : log_x_(plot.log_x) {
    x_ = log_x_ ? Range{std::log2(x.lo), std::log2(x.hi)} : x;
    x_ = widened(x_);
    if (log_x_) {
      // Half an octave of margin either side so the end points do not sit on the frame.
      x_ = {x_.lo - 0.25, x_.hi + 0.25};
    } else {
      const double step = nice_step(x_);
      x_ = {std::floor(x_.lo / step) * step, std::ceil(x_.hi / step) * step};
      x_step_ = step;
    }
    y_ = widened(y);
    y_step_ = nice_step(y_);
    y_ = {std::floor(y_.lo / y_step_) * y_step_, std::ceil(y_.hi / y_step_) * y_step_};
  }

  double px(double x) const {
    const double v = log_x_ ? std::log2(x) : x;
    return kLeft + (v - x_.lo) / (x_.hi - x_.lo) * (kRight - kLeft);
  }
  double py(double y) const { return kBottom - (y - y_.lo) / (y_.hi - y_.lo) * (kBottom - kTop); }

  std::vector<double> x_ticks(const std::vector<double>& data_x) const {
    if (log_x_) return data_x;
    std::vector<double> ticks;
    for (double v = x_.lo; v <= x_.hi + 1e-9 * x_step_; v += x_step_)
      ticks.push_back(v);
    return ticks;
  }
  std::vector<double> y_ticks() const {
    std::vector<double> ticks;
    const auto n = static_cast<int>(std::lround((y_.hi - y_.lo) / y_step_));
    for (int i = 0; i <= n; ++i)
      ticks.push_back(y_.lo + i * y_step_);
    return ticks;
  }

 private:
  bool log_x_;
  Range x_;
  Range y_;
  double x_step_ = 1.0;
  double y_step_ = 1.0;
};

std::string tick_label(double v) {
  // Round away the sums' last bits (0.30000000000000004) before printing.
  const double rounded = std::abs(v) < 1e-12 ? 0.0 : std::stod(fmt::format("{:.10g}", v));
  return fmt::format("{:g}", rounded);
}

}  // namespace

std::string render_svg(const PlotSpec& plot) {
  bool any = false;
  Range x{std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest()};
  Range y = x;
  std::vector<double> data_x;
  const auto include = [&](PlotPoint p) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) return;
    if (plot.log_x && p.x <= 0.0) {
      throw std::invalid_argument(
          fmt::format("plot '{}': x = {} on a log axis (x must be > 0)", plot.title, p.x));
    }
    any = true;
    x = {std::min(x.lo, p.x), std::max(x.hi, p.x)};
    y = {std::min(y.lo, p.y), std::max(y.hi, p.y)};
    data_x.push_back(p.x);
  };
  for (const PlotSeries& s : plot.series)
    for (const PlotPoint& p : s.points)
      include(p);
  for (const PlotMarker& m : plot.markers)
    include(m.at);
  if (!any) throw std::invalid_argument(fmt::format("plot '{}' has no point to draw", plot.title));
  std::sort(data_x.begin(), data_x.end());
  data_x.erase(std::unique(data_x.begin(), data_x.end()), data_x.end());
  const Axes axes(plot, x, y);

  std::string out;
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" font-family=\"sans-serif\" font-size=\"12\">\n",
      kWidth, kHeight);
  out += fmt::format("<title>{}</title>\n", escaped(plot.title));
  out += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"white\"/>\n", kWidth, kHeight);
  out += fmt::format("<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n",
                     coordinate((kLeft + kRight) / 2.0), escaped(plot.title));

  // Grid, ticks and tick labels.
  out += "<g class=\"axes\" stroke=\"#cccccc\" stroke-width=\"1\">\n";
  for (const double t : axes.y_ticks()) {
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", coordinate(kLeft),
                       coordinate(axes.py(t)), coordinate(kRight));
  }
  for (const double t : axes.x_ticks(data_x)) {
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n",
                       coordinate(axes.px(t)), coordinate(kTop), coordinate(kBottom));
  }
  out += "</g>\n";
  out += "<g class=\"tick-labels\" fill=\"#333333\">\n";
  for (const double t : axes.y_ticks()) {
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
                       coordinate(kLeft - 6.0), coordinate(axes.py(t) + 4.0), tick_label(t));
  }
  for (const double t : axes.x_ticks(data_x)) {
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                       coordinate(axes.px(t)), coordinate(kBottom + 16.0), tick_label(t));
  }
  out += "</g>\n";
  out += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333333\"/>\n",
      coordinate(kLeft), coordinate(kTop), coordinate(kRight - kLeft), coordinate(kBottom - kTop));
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     coordinate((kLeft + kRight) / 2.0), coordinate(kHeight - 20.0),
                     escaped(plot.x_label + (plot.log_x ? " (log scale)" : "")));
  out += fmt::format(
      "<text x=\"18\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 18 "
      "{0})\">{1}</text>\n",
      coordinate((kTop + kBottom) / 2.0), escaped(plot.y_label));

  // Series: one polyline each, with a dot on every point.
  for (std::size_t i = 0; i < plot.series.size(); ++i) {
    const PlotSeries& s = plot.series[i];
    const char* color = kPalette[i % kPalette.size()];
    std::string points;
    std::string dots;
    for (const PlotPoint& p : s.points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
      const std::string px = coordinate(axes.px(p.x));
      const std::string py = coordinate(axes.py(p.y));
      points += (points.empty() ? "" : " ") + px + "," + py;
      dots += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\"/>\n", px, py);
    }
    out += fmt::format("<g class=\"series\" fill=\"{0}\" stroke=\"{0}\">\n", color);
    out += fmt::format("<title>{}</title>\n", escaped(s.name));
    out += fmt::format("<polyline fill=\"none\" stroke-width=\"2\" points=\"{}\"/>\n", points);
    out += dots;
    out += "</g>\n";
    const double ly = kTop + 10.0 + 20.0 * static_cast<double>(i);
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2\"/>\n",
        coordinate(kRight + 15.0), coordinate(ly), coordinate(kRight + 40.0), color);
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", coordinate(kRight + 46.0),
                       coordinate(ly + 4.0), escaped(s.name));
  }

  // Markers: hollow black circles with their label.
  for (const PlotMarker& m : plot.markers) {
    if (!std::isfinite(m.at.x) || !std::isfinite(m.at.y)) continue;
    const double cx = axes.px(m.at.x);
    const double cy = axes.py(m.at.y);
    out += fmt::format(
        "<circle class=\"marker\" cx=\"{}\" cy=\"{}\" r=\"6\" fill=\"none\" stroke=\"black\" "
        "stroke-width=\"1.5\"/>\n",
        coordinate(cx), coordinate(cy));
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", coordinate(cx + 9.0),
                       coordinate(cy - 8.0), escaped(m.label));
  }
  out += "</svg>\n";
  return out;
}

void write_svg(const std::filesystem::path& path, const PlotSpec& plot) {
  write_atomically(path, render_svg(plot));
}

}  // namespace trainsim::reports
