#pragma once
// Line plots drawn by gnuplot (Debian's gnuplot-nox) in its SVG terminal: the plot is a
// description (series, axis labels, log axes, labelled markers, horizontal bars), turned into a
// gnuplot script with the data inline and run without a shell. The size, font and palette are fixed
// and the one line that names gnuplot's version is dropped, so a committed plot changes only when
// the figures behind it (or gnuplot's drawing) do.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace trainsim::documents {

struct PlotPoint {
  double x = 0.0;
  double y = 0.0;
};

/// One line; points that are not finite are left out.
struct PlotSeries {
  std::string name;
  std::vector<PlotPoint> points;
  /// When not empty, one per point: a horizontal bar from the point's x to this x (a spread
  /// such as a p90 beside a p50). A point whose bar end is not finite is left out.
  std::vector<double> x_high = {};
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
  bool log_x = false;  ///< log2 x axis (x must be > 0), ticks at the data's x values
  bool log_y = false;  ///< log10 y axis (y must be > 0)
  std::vector<PlotSeries> series;
  std::vector<PlotMarker> markers;
  /// The markers' legend entry ("published" for a paper's points); none when empty.
  std::string markers_title;
};

/// The gnuplot script that draws `plot` as SVG on stdout (760 x 400, DejaVu Sans 11).
/// Throws std::invalid_argument when there is no finite point to draw, a log axis meets a
/// value <= 0 or a series has bar ends but not one per point.
std::string gnuplot_script(const PlotSpec& plot);

/// `text` as a gnuplot single-quoted string (no escapes are interpreted there; a quote is
/// doubled, a line break becomes a space).
std::string gnuplot_quoted(std::string_view text);

/// Runs gnuplot on `script` (which must set the SVG terminal and draw one plot on stdout) and
/// returns the SVG; `title` names the plot in errors. The errors are render_svg's.
std::string render_gnuplot_svg(const std::string& script, const std::string& title);

/// Runs gnuplot on gnuplot_script(plot) and returns the SVG. Throws std::runtime_error when
/// gnuplot is not installed (naming the Debian package), exits non-zero or writes anything to
/// stderr (its message quoted).
std::string render_svg(const PlotSpec& plot);

/// Writes render_svg(plot) to `path` atomically (documents/atomic_file.hpp).
void write_svg(const std::filesystem::path& path, const PlotSpec& plot);

}  // namespace trainsim::documents
