#pragma once
// How a claim map (claim_map.hpp) is shown: the region table (per unknown, the values along
// the line through the paper's machine at which the published figure arises, at which the
// advantage reverses and at which it halves), the grid as a table and a heat map with the
// paper's machine marked, the verdict line, the text `trainsim claims` prints, and JSON.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "documents/gnuplot_heatmap.hpp"
#include "documents/report_content.hpp"
#include "documents/report_table.hpp"
#include "reproductions/claims/claim_map.hpp"

namespace trainsim::reproductions::claim_maps {

/// "1.48" style figure of a map value; "-" when unknown.
std::string ratio_text(const MapValue& value);

/// One sentence: the published figure and its tolerance, ours at the paper's machine, the
/// closest plausible setup the search found and whether the figure arises there.
std::string verdict_text(const ClaimMap& map);

/// Per unknown: its values, the paper's machine, our ratio along the line through it, and
/// the values at which the ratio is within the tolerance, below 1 (the advantage reverses)
/// and at most half the published figure. Block and CSV id "map-<id>".
documents::ReportTable region_table(const ClaimMap& map);

/// The grid: one row per value of the y axis (top = last), one column per x value; a cell
/// within the tolerance carries "✓", an infeasible one its ratio in parentheses. Id
/// "map-<id>-grid".
documents::ReportTable grid_table(const ClaimMap& map);

/// The heat map of the grid: colour log2(ours / published), cells within the tolerance
/// outlined, infeasible cells grey, the paper's machine circled and the closest plausible
/// setup marked when it lies on the grid.
documents::HeatmapSpec heatmap(const ClaimMap& map);

/// The setups of the lines and the grid within the tolerance but not plausible for the paper's
/// machine ("NIC bandwidth NDR 50 GB/s: 1.65x"), each once.
std::vector<std::string> within_but_implausible(const ClaimMap& map);

/// The plausible values of each unknown and why, as a Markdown list.
std::string axes_markdown(const ClaimMap& map);

/// Adds the map to a report: the region table "map-<id>" (block and CSV) followed by the
/// verdict and the axes' reasons, the grid table "map-<id>-grid" and the plot "map-<id>.svg".
void add_claim_map(documents::ReportContent& content, const ClaimMap& map);

/// What `trainsim claims` prints for one map.
std::string format_claim_map(const ClaimMap& map);

/// One line per map: the published figure, ours at the paper's machine, the plausible setup
/// within tolerance (or the closest), the row it decides; a Markdown table.
std::string format_claim_summary(const std::vector<ClaimMap>& maps);

/// The map as JSON (every evaluated line and grid value, the search's result).
nlohmann::ordered_json claim_map_json(const ClaimMap& map);

}  // namespace trainsim::reproductions::claim_maps
