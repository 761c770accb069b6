#pragma once
// A small SVG line plot: series of (x, y) points, axis labels, an optional log-scale x axis,
// a legend and labelled markers (a published figure beside the curves). The text depends on
// the inputs alone (fixed size, palette and number formatting), so a committed plot changes
// only when the figures behind it do.

#include <filesystem>
#include <string>
#include <vector>

namespace trainsim::reports {

struct PlotPoint {
  double x = 0.0;
  double y = 0.0;
};

/// One polyline; points that are not finite are left out.
struct PlotSeries {
  std::string name;
  std::vector<PlotPoint> points;
};

/// A labelled point drawn as a hollow circle (e.g. "published 1.48×").
struct PlotMarker {
  PlotPoint at;
  std::string label;
};

struct PlotSpec {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x = false;  ///< log2-spaced x axis (x must be > 0), ticks at the data's x values
  std::vector<PlotSeries> series;
  std::vector<PlotMarker> markers;
};

/// The plot as an SVG document (640 x 400 user units). Throws std::invalid_argument when
/// there is no finite point to draw or log_x meets an x <= 0.
std::string render_svg(const PlotSpec& plot);

/// Writes render_svg(plot) to `path` atomically (reports/atomic_file.hpp).
void write_svg(const std::filesystem::path& path, const PlotSpec& plot);

}  // namespace trainsim::reports
