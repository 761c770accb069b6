#include "reproductions/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace trainsim::reproductions {

void Sweep::add_row(double x, const std::vector<double>& values, std::string note) {
  if (values.size() != series.size()) {
    throw std::invalid_argument(
        fmt::format("sweep '{}': {} values for {} series", id, values.size(), series.size()));
  }
  xs.push_back(x);
  for (std::size_t i = 0; i < values.size(); ++i)
    series[i].values.push_back(values[i]);
  row_notes.push_back(std::move(note));
}

std::string Sweep::format() const {
  std::size_t x_width = x_label.size();
  for (const double x : xs)
    x_width = std::max(x_width, fmt::format("{:g}", x).size());
  std::string out = title + "\n";
  out += fmt::format("  {:>{}}", x_label, x_width);
  std::vector<std::size_t> widths;
  for (const SweepSeries& s : series) {
    widths.push_back(std::max<std::size_t>(s.name.size(), 8));
    out += fmt::format("  {:>{}}", s.name, widths.back());
  }
  out += "\n";
  for (std::size_t row = 0; row < xs.size(); ++row) {
    out += fmt::format("  {:>{}}", fmt::format("{:g}", xs[row]), x_width);
    for (std::size_t i = 0; i < series.size(); ++i) {
      const double v = row < series[i].values.size() ? series[i].values[row] : NAN;
      out += fmt::format("  {:>{}}", std::isfinite(v) ? fmt::format("{:.3g}", v) : "-", widths[i]);
    }
    if (row < row_notes.size() && !row_notes[row].empty()) out += "  " + row_notes[row];
    out += "\n";
  }
  for (const SweepReference& r : references)
    out += fmt::format("  published {} (at the stated {} {:g})\n", r.label, x_label, r.x);
  return out;
}

documents::PlotSpec Sweep::plot() const {
  documents::PlotSpec p;
  p.title = title;
  p.x_label = x_label;
  p.y_label = y_label;
  p.log_x = log_x;
  for (const SweepSeries& s : series) {
    documents::PlotSeries line{s.name, {}};
    for (std::size_t row = 0; row < xs.size() && row < s.values.size(); ++row) {
      line.points.push_back({xs[row], s.values[row]});
    }
    p.series.push_back(std::move(line));
  }
  for (const SweepReference& r : references)
    p.markers.push_back({{r.x, r.y}, "published " + r.label});
  p.markers_title = "published";
  return p;
}

}  // namespace trainsim::reproductions
