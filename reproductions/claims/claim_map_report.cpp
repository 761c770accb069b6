#include "reproductions/claims/claim_map_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>
#include <vector>

namespace trainsim::reproductions::claim_maps {
namespace {

using nlohmann::ordered_json;

std::string percent(double v) {
  return std::isfinite(v) ? fmt::format("{:+.1f} %", 100.0 * v) : "-";
}

// The labels of the axis values where `holds` is true, consecutive ones joined into a range
// ("1024–4096, 16384"); "—" when there are none (not "none", a value of some axes), "all" when
// every value holds.
std::string runs(const Axis& axis, const std::vector<bool>& holds) {
  std::string out;
  std::size_t count = 0;
  for (std::size_t i = 0; i < holds.size();) {
    if (!holds[i]) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j + 1 < holds.size() && holds[j + 1])
      ++j;
    out += out.empty() ? "" : ", ";
    const std::string& first = axis.values[i].label;
    const std::string& last = axis.values[j].label;
    // "1024–4096"; labels with spaces or hyphens get a spaced dash ("t 16 × DP 4 – t 4 × DP
    // 16", "column-major – depth-major").
    const bool spaced = first.find_first_of(" -") != std::string::npos;
    out += j == i ? first : fmt::format("{}{}{}", first, spaced ? " – " : "–", last);
    count += j - i + 1;
    i = j + 1;
  }
  if (count == 0) return "—";
  if (count == holds.size() && holds.size() > 1) return "all";
  return out;
}

std::vector<bool> where(const MapLine& line, const std::function<bool(const MapValue&)>& test) {
  std::vector<bool> out;
  for (const MapValue& v : line.values)
    out.push_back(test(v));
  return out;
}

bool known(const MapValue& v) {
  return std::isfinite(v.ratio);
}

// "label → 1.33", flagged when the setup is infeasible or not plausible for the machine.
std::string line_entry(const Axis& axis, std::size_t i, const MapValue& v) {
  std::string out = fmt::format("{} → {}", axis.values[i].label, ratio_text(v));
  std::vector<std::string> flags;
  if (!v.feasible) flags.push_back(v.note.empty() ? "infeasible" : v.note);
  if (!axis.values[i].plausible) flags.push_back("not plausible");
  if (!flags.empty()) out += " (" + fmt::format("{}", fmt::join(flags, "; ")) + ")";
  return out;
}

ordered_json value_json(const ClaimMap& map, const MapValue& v) {
  ordered_json j;
  j["ratio"] = std::isfinite(v.ratio) ? ordered_json(v.ratio) : ordered_json(nullptr);
  j["feasible"] = v.feasible;
  j["within_tolerance"] = map.within(v);
  if (!v.note.empty()) j["note"] = v.note;
  return j;
}

}  // namespace

std::string ratio_text(const MapValue& value) {
  return std::isfinite(value.ratio) ? fmt::format("{:.3g}", value.ratio) : "-";
}

std::vector<std::string> within_but_implausible(const ClaimMap& map) {
  const ClaimMapSpec& s = map.spec;
  const MapPoint paper = s.paper_point();
  std::vector<std::string> out;
  const auto note = [&](const MapPoint& p, const MapValue& v) {
    if (s.plausible(p) || !map.within(v)) return;
    std::string text = fmt::format("{}: {}{}", s.describe_change(p), ratio_text(v), s.unit);
    if (std::find(out.begin(), out.end(), text) == out.end()) out.push_back(std::move(text));
  };
  for (const MapLine& line : map.lines) {
    for (std::size_t i = 0; i < line.values.size(); ++i) {
      MapPoint p = paper;
      p[line.axis] = i;
      note(p, line.values[i]);
    }
  }
  for (std::size_t y = 0; y < map.grid.size(); ++y) {
    for (std::size_t x = 0; x < map.grid[y].size(); ++x) {
      MapPoint p = paper;
      p[s.grid_y] = y;
      p[s.grid_x] = x;
      note(p, map.grid[y][x]);
    }
  }
  return out;
}

std::string verdict_text(const ClaimMap& map) {
  const ClaimMapSpec& s = map.spec;
  const std::string at_paper =
      fmt::format("at the paper's machine ours is {}{} ({})", ratio_text(map.at_paper), s.unit,
                  percent(map.signed_error(map.at_paper)));
  std::string found;
  if (map.fewest_changes) {
    found = fmt::format(
        "the figure arises at a setup plausible for the paper's machine: with the fewest "
        "changes found, {}, ours is {}{} ({})",
        s.describe_change(*map.fewest_changes), ratio_text(*map.fewest_changes_value), s.unit,
        percent(map.signed_error(*map.fewest_changes_value)));
  } else {
    found = fmt::format(
        "the figure does not arise at any setup plausible for the paper's machine that the "
        "search found: the closest, {}, gives {}{} ({})",
        s.describe_change(map.closest), ratio_text(map.closest_value), s.unit,
        percent(map.signed_error(map.closest_value)));
    const std::vector<std::string> elsewhere = within_but_implausible(map);
    if (!elsewhere.empty()) {
      found += fmt::format("; within the tolerance only at setups not plausible for it ({})",
                           fmt::join(elsewhere, "; "));
    }
  }
  std::string how = "the lines, the grid";
  if (!s.exhaustive_axes.empty()) {
    std::vector<std::string> names;
    for (const std::size_t a : s.exhaustive_axes)
      names.push_back(s.axes[a].name);
    how += fmt::format(", every combination of {}", fmt::join(names, ", "));
  }
  return fmt::format(
      "Published {:g}{} ({}), tolerance ±{:.0f} %: {}; {}. {} setups evaluated ({}, and a "
      "coordinate search over the plausible values from the closest of them, which {}: a local "
      "search, which may miss a setup that changes several other unknowns at once).{}",
      s.published, s.unit, s.source, 100.0 * s.tolerance, at_paper, found, map.evaluations, how,
      map.converged ? "converged" : fmt::format("stopped after {} rounds", kMaxSearchRounds),
      s.decides.empty() ? "" : fmt::format(" This map decides {}.", s.decides));
}

documents::ReportTable region_table(const ClaimMap& map) {
  const ClaimMapSpec& s = map.spec;
  documents::ReportTable t{
      "map-" + s.id,
      {"unknown", "paper's machine", "ours along the line through it",
       fmt::format("within ±{:.0f} %", 100.0 * s.tolerance), "advantage reverses (< 1, feasible)",
       fmt::format("halves (≤ {:g}, feasible)", s.published / 2.0)},
      {}};
  for (const MapLine& line : map.lines) {
    const Axis& axis = s.axes[line.axis];
    std::vector<std::string> entries;
    for (std::size_t i = 0; i < line.values.size(); ++i)
      entries.push_back(line_entry(axis, i, line.values[i]));
    t.add_row(
        {axis.name, axis.values[axis.paper].label, fmt::format("{}", fmt::join(entries, " · ")),
         runs(axis, where(line, [&](const MapValue& v) { return map.within(v); })),
         runs(axis,
              where(line,
                    [](const MapValue& v) { return v.feasible && known(v) && v.ratio < 1.0; })),
         runs(axis, where(line, [&](const MapValue& v) {
                return v.feasible && known(v) && v.ratio <= s.published / 2.0;
              }))});
  }
  return t;
}

documents::ReportTable grid_table(const ClaimMap& map) {
  const ClaimMapSpec& s = map.spec;
  const Axis& ax = s.axes[s.grid_x];
  const Axis& ay = s.axes[s.grid_y];
  documents::ReportTable t{
      "map-" + s.id + "-grid", {fmt::format("{} \\ {}", ay.name, ax.name)}, {}};
  for (const AxisValue& v : ax.values)
    t.columns.push_back(v.label);
  for (std::size_t y = map.grid.size(); y-- > 0;) {
    std::vector<std::string> row{ay.values[y].label};
    for (const MapValue& v : map.grid[y]) {
      const std::string r = ratio_text(v);
      row.push_back(!v.feasible ? "(" + r + ")" : map.within(v) ? r + " ✓" : r);
    }
    t.add_row(std::move(row));
  }
  return t;
}

documents::HeatmapSpec heatmap(const ClaimMap& map) {
  const ClaimMapSpec& s = map.spec;
  const Axis& ax = s.axes[s.grid_x];
  const Axis& ay = s.axes[s.grid_y];
  documents::HeatmapSpec h;
  h.title = fmt::format("{}: published {:g}{}", s.claim, s.published, s.unit);
  h.x_label = ax.name;
  h.y_label = ay.name;
  for (const AxisValue& v : ax.values)
    h.x_ticks.push_back(v.label);
  for (const AxisValue& v : ay.values)
    h.y_ticks.push_back(v.label);
  h.color_label = "log2(ours / published)";
  h.color_range = 2.0;
  h.outline_title = fmt::format("within ±{:.0f} %", 100.0 * s.tolerance);
  for (const auto& row : map.grid) {
    std::vector<documents::HeatmapCell> cells;
    for (const MapValue& v : row) {
      documents::HeatmapCell c;
      c.color = v.feasible && known(v) && v.ratio > 0.0 ? std::log2(v.ratio / s.published) : NAN;
      c.label = known(v) ? ratio_text(v) : "-";
      c.outlined = map.within(v);
      cells.push_back(std::move(c));
    }
    h.cells.push_back(std::move(cells));
  }
  h.markers.push_back({ax.paper, ay.paper, "the paper's machine (stated setup)"});
  // The setup the verdict names (within the tolerance with the fewest changes, else the
  // closest), when it differs from the paper's machine only on the grid's axes (elsewhere it is
  // not a cell of this grid).
  const MapPoint& named = map.fewest_changes ? *map.fewest_changes : map.closest;
  bool on_grid = named != s.paper_point();
  for (std::size_t a = 0; a < s.axes.size(); ++a) {
    if (a != s.grid_x && a != s.grid_y && named[a] != s.axes[a].paper) on_grid = false;
  }
  if (on_grid) {
    h.markers.push_back({named[s.grid_x], named[s.grid_y],
                         map.fewest_changes ? "plausible setup within tolerance (fewest changes)"
                                            : "closest plausible setup"});
  }
  return h;
}

std::string axes_markdown(const ClaimMap& map) {
  std::string out;
  for (const Axis& a : map.spec.axes) {
    std::vector<std::string> plausible;
    for (const AxisValue& v : a.values) {
      if (v.plausible) plausible.push_back(v.label);
    }
    out += fmt::format("- **{}** (plausible: {}): {}\n", a.name,
                       fmt::format("{}", fmt::join(plausible, "; ")), a.why);
  }
  return out;
}

void add_claim_map(documents::ReportContent& content, const ClaimMap& map) {
  content.add_table(
      region_table(map),
      "\n" + verdict_text(map) + "\n\nPlausible values and why:\n\n" + axes_markdown(map));
  documents::ReportTable grid = grid_table(map);
  const std::string plot_id = "map-" + map.spec.id;
  const std::string after = fmt::format(
      "\n{} over {} and {}, the other unknowns at the paper's machine (✓ within ±{:.0f} %, "
      "parentheses: infeasible, i.e. {}); plot `{}.svg`.\n",
      map.spec.claim, map.spec.axes[map.spec.grid_y].name, map.spec.axes[map.spec.grid_x].name,
      100.0 * map.spec.tolerance, map.spec.infeasible_means, plot_id);
  content.add_table(std::move(grid), after);
  content.add_plot(plot_id, heatmap(map));
}

std::string format_claim_map(const ClaimMap& map) {
  const ClaimMapSpec& s = map.spec;
  std::string out = fmt::format("{} — {}\n  {}\n", s.id, s.claim, verdict_text(map));
  for (const MapLine& line : map.lines) {
    const Axis& axis = s.axes[line.axis];
    out += fmt::format("  {} (paper: {}):", axis.name, axis.values[axis.paper].label);
    for (std::size_t i = 0; i < line.values.size(); ++i)
      out += (i == 0 ? " " : " · ") + line_entry(axis, i, line.values[i]);
    out += "\n";
  }
  out += fmt::format("  grid, {} (rows) × {} (columns):\n", s.axes[s.grid_y].name,
                     s.axes[s.grid_x].name);
  const documents::ReportTable g = grid_table(map);
  for (const auto& row : g.rows)
    out += fmt::format("    {}\n", fmt::join(row, "  "));
  return out;
}

std::string format_claim_summary(const std::vector<ClaimMap>& maps) {
  documents::ReportTable t{
      "claims",
      {"map", "published", "at the paper's machine", "plausible setup within tolerance", "decides"},
      {}};
  for (const ClaimMap& m : maps) {
    const ClaimMapSpec& s = m.spec;
    t.add_row({s.id, fmt::format("{:g}{}", s.published, s.unit),
               fmt::format("{}{} ({})", ratio_text(m.at_paper), s.unit,
                           percent(m.signed_error(m.at_paper))),
               m.fewest_changes
                   ? fmt::format("yes: {}, {}{}", s.describe_change(*m.fewest_changes),
                                 ratio_text(*m.fewest_changes_value), s.unit)
                   : fmt::format("none found (closest {}{})", ratio_text(m.closest_value), s.unit),
               s.decides.empty() ? "-" : s.decides});
  }
  return t.markdown();
}

ordered_json claim_map_json(const ClaimMap& map) {
  const ClaimMapSpec& s = map.spec;
  ordered_json j;
  j["id"] = s.id;
  j["paper"] = s.paper;
  j["claim"] = s.claim;
  j["source"] = s.source;
  j["unit"] = s.unit;
  j["published"] = s.published;
  j["tolerance"] = s.tolerance;
  j["at_paper"] = value_json(map, map.at_paper);
  ordered_json closest = value_json(map, map.closest_value);
  ordered_json setup = ordered_json::object();
  for (std::size_t a = 0; a < s.axes.size(); ++a)
    setup[s.axes[a].name] = s.axes[a].values[map.closest[a]].label;
  closest["setup"] = std::move(setup);
  j["closest_plausible"] = std::move(closest);
  if (map.fewest_changes) {
    ordered_json fewest = value_json(map, *map.fewest_changes_value);
    ordered_json at = ordered_json::object();
    for (std::size_t a = 0; a < s.axes.size(); ++a)
      at[s.axes[a].name] = s.axes[a].values[(*map.fewest_changes)[a]].label;
    fewest["setup"] = std::move(at);
    j["fewest_changes_within_tolerance"] = std::move(fewest);
  } else {
    j["fewest_changes_within_tolerance"] = nullptr;
  }
  j["reproduced_plausibly"] = map.reproduced_plausibly();
  j["search_converged"] = map.converged;
  j["decides"] = s.decides;
  j["evaluations"] = map.evaluations;
  ordered_json axes = ordered_json::array();
  for (const MapLine& line : map.lines) {
    const Axis& axis = s.axes[line.axis];
    ordered_json a;
    a["name"] = axis.name;
    a["why"] = axis.why;
    a["paper"] = axis.values[axis.paper].label;
    ordered_json values = ordered_json::array();
    for (std::size_t i = 0; i < line.values.size(); ++i) {
      ordered_json v = value_json(map, line.values[i]);
      v["label"] = axis.values[i].label;
      v["plausible"] = axis.values[i].plausible;
      values.push_back(std::move(v));
    }
    a["line"] = std::move(values);
    axes.push_back(std::move(a));
  }
  j["axes"] = std::move(axes);
  ordered_json grid;
  grid["x"] = s.axes[s.grid_x].name;
  grid["y"] = s.axes[s.grid_y].name;
  ordered_json rows = ordered_json::array();
  for (const auto& row : map.grid) {
    ordered_json r = ordered_json::array();
    for (const MapValue& v : row)
      r.push_back(value_json(map, v));
    rows.push_back(std::move(r));
  }
  grid["rows"] = std::move(rows);
  j["grid"] = std::move(grid);
  return j;
}

}  // namespace trainsim::reproductions::claim_maps
