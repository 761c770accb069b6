#include "documents/gnuplot_heatmap.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "documents/gnuplot_plot.hpp"

namespace trainsim::documents {
namespace {

// A diverging palette (ColorBrewer RdBu, reversed: blue below the published figure, red
// above), white at zero; colour-blind safe.
constexpr const char* kPalette =
    "set palette defined (-1 '#2166ac', -0.5 '#67a9cf', -0.15 '#d1e5f0', 0 '#f7f7f7', "
    "0.15 '#fddbc7', 0.5 '#ef8a62', 1 '#b2182b')\n";

constexpr const char* kMarkerStyles[] = {"pointtype 6 pointsize 4.5 linewidth 2.5",
                                         "pointtype 8 pointsize 5 linewidth 2"};

std::string number(double v) {
  return fmt::format("{}", v);
}

void check_shape(const HeatmapSpec& map) {
  if (map.x_ticks.empty() || map.y_ticks.empty()) {
    throw std::invalid_argument(fmt::format("heat map '{}': no cells", map.title));
  }
  if (map.cells.size() != map.y_ticks.size()) {
    throw std::invalid_argument(fmt::format("heat map '{}': {} rows for {} y ticks", map.title,
                                            map.cells.size(), map.y_ticks.size()));
  }
  for (const auto& row : map.cells) {
    if (row.size() != map.x_ticks.size()) {
      throw std::invalid_argument(fmt::format("heat map '{}': a row of {} cells for {} x ticks",
                                              map.title, row.size(), map.x_ticks.size()));
    }
  }
  if (map.markers.size() > std::size(kMarkerStyles)) {
    throw std::invalid_argument(
        fmt::format("heat map '{}': {} markers (at most 2)", map.title, map.markers.size()));
  }
  for (const HeatmapMarker& m : map.markers) {
    if (m.x >= map.x_ticks.size() || m.y >= map.y_ticks.size()) {
      throw std::invalid_argument(
          fmt::format("heat map '{}': marker '{}' at ({}, {}) outside the {} x {} grid", map.title,
                      m.title, m.x, m.y, map.x_ticks.size(), map.y_ticks.size()));
    }
  }
}

std::string ticks(char axis, const std::vector<std::string>& labels) {
  std::string out = fmt::format("set {}tics (", axis);
  for (std::size_t i = 0; i < labels.size(); ++i)
    out += fmt::format("{}{} {}", i == 0 ? "" : ", ", gnuplot_quoted(labels[i]), i);
  return out + ") scale 0\n";
}

}  // namespace

std::string heatmap_script(const HeatmapSpec& map) {
  check_shape(map);
  const std::size_t nx = map.x_ticks.size();
  const std::size_t ny = map.y_ticks.size();
  std::string script =
      "set terminal svg size 760,500 fixed font 'DejaVu Sans,11' noenhanced "
      "background '#ffffff'\n"
      "set encoding utf8\n";
  script += fmt::format("set title {}\nset xlabel {}\nset ylabel {}\n", gnuplot_quoted(map.title),
                        gnuplot_quoted(map.x_label), gnuplot_quoted(map.y_label));
  script += fmt::format("set xrange [-0.5:{}]\nset yrange [-0.5:{}]\n", number(nx - 0.5),
                        number(ny - 0.5));
  script += ticks('x', map.x_ticks) + ticks('y', map.y_ticks);
  script += kPalette;
  script += fmt::format("set cbrange [{}:{}]\nset cblabel {}\n", number(-map.color_range),
                        number(map.color_range), gnuplot_quoted(map.color_label));
  script +=
      "set bmargin 6\nset key at screen 0.45,screen 0.035 center horizontal noautotitle\n"
      "unset grid\n";

  std::string colored = "$cells << EOD\n";
  std::string grey = "$empty << EOD\n";
  std::string outlined = "$outlined << EOD\n";
  std::string labels = "$labels << EOD\n";
  bool any_colored = false;
  bool any_grey = false;
  bool any_outlined = false;
  for (std::size_t y = 0; y < ny; ++y) {
    for (std::size_t x = 0; x < nx; ++x) {
      const HeatmapCell& c = map.cells[y][x];
      if (std::isfinite(c.color)) {
        const double v = std::clamp(c.color, -map.color_range, map.color_range);
        colored += fmt::format("{} {} {}\n", x, y, number(v));
        any_colored = true;
      } else {
        grey += fmt::format("{} {}\n", x, y);
        any_grey = true;
      }
      if (c.outlined) {
        outlined += fmt::format("{} {}\n", x, y);
        any_outlined = true;
      }
      // A datablock line: the label double-quoted, with inner double quotes dropped.
      std::string text = c.label;
      text.erase(std::remove(text.begin(), text.end(), '"'), text.end());
      labels += fmt::format("{} {} \"{}\"\n", x, y, text);
    }
  }
  script += colored + "EOD\n" + grey + "EOD\n" + outlined + "EOD\n" + labels + "EOD\n";

  // gnuplot warns on stderr (an error here) about a data block with no point, so each is
  // plotted only when it has one.
  std::vector<std::string> plots;
  if (any_colored) {
    plots.push_back(
        "$cells using 1:2:(0.5):(0.5):3 with boxxyerror fillstyle solid 1.0 noborder "
        "fillcolor palette notitle");
  }
  if (any_grey) {
    plots.push_back(
        fmt::format("$empty using 1:2:(0.5):(0.5) with boxxyerror fillstyle solid 1.0 noborder "
                    "fillcolor rgb '#d9d9d9' title {}",
                    gnuplot_quoted(map.empty_title)));
  }
  if (any_outlined) {
    plots.push_back(
        fmt::format("$outlined using 1:2:(0.47):(0.47) with boxxyerror linewidth 2.5 linecolor rgb "
                    "'#000000' fillstyle empty border linecolor rgb '#000000' title {}",
                    gnuplot_quoted(map.outline_title)));
  }
  plots.push_back("$labels using 1:2:3 with labels font 'DejaVu Sans,10' notitle");
  for (std::size_t i = 0; i < map.markers.size(); ++i) {
    const HeatmapMarker& m = map.markers[i];
    script += fmt::format("$marker{} << EOD\n{} {}\nEOD\n", i, m.x, m.y);
    // The legend shows the marker at a normal size (keyentry), the cell a large one.
    plots.push_back(fmt::format(
        "$marker{} using 1:2 with points {} linecolor rgb '#000000' notitle, keyentry with "
        "points pointtype {} pointsize 1.5 linewidth 2 linecolor rgb '#000000' title {}",
        i, kMarkerStyles[i], i == 0 ? 6 : 8, gnuplot_quoted(m.title)));
  }
  return script + fmt::format("plot {}\n", fmt::join(plots, ", "));
}

std::string render_svg(const HeatmapSpec& map) {
  return render_gnuplot_svg(heatmap_script(map), map.title);
}

}  // namespace trainsim::documents
