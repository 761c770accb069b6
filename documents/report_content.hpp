#pragma once
// What a generated report consists of: named Markdown blocks for its README, tables (each a
// block and a CSV file) and plots (SVG files). Reproductions and analyses fill one; the report
// writer (report_files.hpp) turns it into files.

#include <map>
#include <string>
#include <variant>
#include <vector>

#include "documents/gnuplot_heatmap.hpp"
#include "documents/gnuplot_plot.hpp"
#include "documents/report_table.hpp"

namespace trainsim::documents {

struct ReportPlot {
  std::string id;  ///< file stem: `id`.svg
  std::variant<PlotSpec, HeatmapSpec> spec;
};

struct ReportContent {
  std::map<std::string, std::string> blocks;  ///< block name → Markdown ending in "\n"
  std::vector<std::string> block_order;       ///< as added: the order of a new README
  std::vector<ReportTable> tables;            ///< each also written as `id`.csv
  std::vector<ReportPlot> plots;

  /// A block of Markdown; throws std::invalid_argument when the name is taken.
  void add_block(const std::string& name, std::string markdown);
  /// The table as block `table.id` (its Markdown, then `after`) and as `table.id`.csv.
  void add_table(ReportTable table, const std::string& after = {});
  /// The table as `table.id`.csv only, without a README block (one row per measurement: too
  /// long to show); throws std::invalid_argument when a block or table has its id.
  void add_csv(ReportTable table);
  /// A plot, `id`.svg; throws std::invalid_argument when the id is taken.
  void add_plot(std::string id, PlotSpec spec);
  /// A heat map, `id`.svg; throws std::invalid_argument when the id is taken.
  void add_plot(std::string id, HeatmapSpec spec);
};

/// `text` in a Markdown code fence (```text), for output whose columns matter.
std::string fenced(const std::string& text, const std::string& language = "text");

}  // namespace trainsim::documents
