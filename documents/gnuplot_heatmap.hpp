#pragma once
// A heat map drawn by gnuplot's SVG terminal: a grid of cells over two categorical axes, each
// coloured by a value on a diverging palette centred on zero, labelled with its text, outlined
// when it is "in" (a claim map's cells within the published figure's tolerance), grey when it
// has no value, and markers on chosen cells (the paper's machine). The cells are drawn as
// boxes, not as an image, so the SVG is plain vector paths with deterministic bytes.

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace trainsim::documents {

struct HeatmapCell {
  double color = 0.0;  ///< position on the palette, in [-color_range, color_range]; NaN: grey
  std::string label;   ///< drawn in the cell ("1.48")
  bool outlined = false;
};

struct HeatmapMarker {
  std::size_t x = 0;  ///< cell column
  std::size_t y = 0;  ///< cell row
  std::string title;  ///< legend entry ("the paper's machine")
};

struct HeatmapSpec {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<std::string> x_ticks;             ///< one per column
  std::vector<std::string> y_ticks;             ///< one per row, bottom to top
  std::vector<std::vector<HeatmapCell>> cells;  ///< cells[row][column]
  std::string color_label;                      ///< the colour bar's ("log2(ours / published)")
  double color_range = 2.0;   ///< the palette spans ±color_range; values beyond are clipped
  std::string outline_title;  ///< legend entry of outlined cells ("within ±20 %")
  std::string empty_title = "infeasible";  ///< legend entry of grey cells (no value)
  std::vector<HeatmapMarker> markers;      ///< at most two (a circle, then a triangle)
};

/// The gnuplot script drawing `map` as SVG on stdout (760 x 500, DejaVu Sans 11). Throws
/// std::invalid_argument when the cells are not ticks-shaped, there are none, a marker lies
/// outside the grid or there are more than two markers.
std::string heatmap_script(const HeatmapSpec& map);

/// Runs gnuplot on heatmap_script (errors as render_svg's, documents/gnuplot_plot.hpp).
std::string render_svg(const HeatmapSpec& map);

}  // namespace trainsim::documents
