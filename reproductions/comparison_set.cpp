#include "reproductions/comparison_set.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "reports/error_statistics.hpp"

namespace trainsim::reproductions {

std::string_view to_string(SetStatistic statistic) {
  switch (statistic) {
    case SetStatistic::mean_abs:
      return "mean";
    case SetStatistic::median_abs:
      return "median";
    case SetStatistic::p90_abs:
      return "p90";
    case SetStatistic::max_abs:
      return "max";
    case SetStatistic::abs_bias:
      return "|bias|";
  }
  throw std::logic_error("unknown set statistic");
}

std::string_view json_key(SetStatistic statistic) {
  switch (statistic) {
    case SetStatistic::mean_abs:
      return "mean_abs_error";
    case SetStatistic::median_abs:
      return "median_abs_error";
    case SetStatistic::p90_abs:
      return "p90_abs_error";
    case SetStatistic::max_abs:
      return "max_abs_error";
    case SetStatistic::abs_bias:
      return "abs_bias";
  }
  throw std::logic_error("unknown set statistic");
}

double SetStats::value(SetStatistic statistic) const {
  switch (statistic) {
    case SetStatistic::mean_abs:
      return mean_abs;
    case SetStatistic::median_abs:
      return median_abs;
    case SetStatistic::p90_abs:
      return p90_abs;
    case SetStatistic::max_abs:
      return max_abs;
    case SetStatistic::abs_bias:
      return std::fabs(bias);
  }
  throw std::logic_error("unknown set statistic");
}

SetStats set_stats(std::span<const Comparison* const> rows) {
  SetStats s;
  std::vector<double> absolute;
  double signed_sum = 0.0;
  for (const Comparison* c : rows) {
    if (c->left_out()) {
      ++s.left_out;
      continue;
    }
    const double e = c->signed_error();
    signed_sum += e;
    absolute.push_back(std::fabs(e));
  }
  s.rows = absolute.size();
  if (absolute.empty()) return s;
  if (!std::isfinite(signed_sum)) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s.mean_abs = s.median_abs = s.p90_abs = s.max_abs = s.bias = nan;
    return s;
  }
  const auto n = static_cast<double>(absolute.size());
  double absolute_sum = 0.0;
  for (const double a : absolute)
    absolute_sum += a;
  s.mean_abs = absolute_sum / n;
  s.bias = signed_sum / n;
  s.max_abs = *std::max_element(absolute.begin(), absolute.end());
  s.median_abs = reports::median(absolute);
  s.p90_abs = reports::nearest_rank(std::move(absolute), 0.9);
  return s;
}

std::vector<SetBound> SetResult::exceeded(const std::vector<SetBound>& bounds) const {
  std::vector<SetBound> out;
  for (const SetBound& b : bounds) {
    if (!(stats.value(b.statistic) <= b.limit)) out.push_back(b);
  }
  return out;
}

bool SetResult::failed() const {
  return judged() && !exceeded(set->tolerance).empty();
}

bool SetResult::above_aim() const {
  return judged() && !exceeded(set->aim).empty();
}

namespace {

std::string statistic_names(const std::vector<SetBound>& bounds) {
  std::string out;
  for (const SetBound& b : bounds)
    out += fmt::format("{}{}", out.empty() ? "" : ", ", to_string(b.statistic));
  return out;
}

std::string rows_cell(const SetStats& s) {
  return s.left_out == 0 ? fmt::format("{}", s.rows) : fmt::format("{} (+{})", s.rows, s.left_out);
}

// One row of the summary: set, n, mean, median, p90, max, bias, tolerance, aim, verdict; the
// statistics are "-" where no row counts.
std::vector<std::string> summary_cells(const SetResult& r) {
  const SetStats& s = r.stats;
  const bool any = s.rows > 0;
  auto stat = [&](double v) { return any ? percent_text(v) : "-"; };
  return {r.set->name,
          rows_cell(s),
          stat(s.mean_abs),
          stat(s.median_abs),
          stat(s.p90_abs),
          stat(s.max_abs),
          any ? signed_percent_text(s.bias) : "-",
          format_bounds(r.set->tolerance),
          format_bounds(r.set->aim),
          r.verdict()};
}

const std::vector<std::string> kSummaryColumns{
    "set",       "n (+left out)", "mean |err|", "median |err|", "p90 |err|",
    "max |err|", "bias",          "tolerance",  "aim",          "verdict"};

}  // namespace

std::string SetResult::verdict() const {
  if (!judged()) {
    std::string without;
    for (const std::string& m : missing)
      without += (without.empty() ? "" : ", ") + m;
    return fmt::format("partial (without {}: not judged)", without);
  }
  const std::vector<SetBound> out = exceeded(set->tolerance);
  if (!out.empty()) return fmt::format("FAIL ({})", statistic_names(out));
  const std::vector<SetBound> over = exceeded(set->aim);
  if (!over.empty()) return fmt::format("ok (> aim: {})", statistic_names(over));
  return "ok";
}

std::string percent_text(double relative) {
  return std::isfinite(relative) ? fmt::format("{:.1f} %", 100.0 * relative) : "-";
}

std::string signed_percent_text(double relative) {
  return std::isfinite(relative) ? fmt::format("{:+.1f} %", 100.0 * relative) : "-";
}

std::string format_bounds(const std::vector<SetBound>& bounds) {
  std::string out;
  for (const SetBound& b : bounds) {
    out += fmt::format("{}{} {:g} %", out.empty() ? "" : ", ", to_string(b.statistic),
                       100.0 * b.limit);
  }
  return out;
}

int count_set_failures(std::span<const SetResult> results) {
  return static_cast<int>(
      std::count_if(results.begin(), results.end(), [](const SetResult& r) { return r.failed(); }));
}

std::string format_set_summary(const std::string& title, std::span<const SetResult> results) {
  std::vector<std::vector<std::string>> lines{kSummaryColumns};
  for (const SetResult& r : results)
    lines.push_back(summary_cells(r));
  std::vector<std::size_t> width(kSummaryColumns.size(), 0);
  for (const auto& cells : lines) {
    for (std::size_t c = 0; c < cells.size(); ++c)
      width[c] = std::max(width[c], cells[c].size());
  }
  std::string out = title + "\n";
  for (const auto& cells : lines) {
    std::string line = " ";
    for (std::size_t c = 0; c < cells.size(); ++c) {
      // Names and bounds left-aligned, figures right-aligned; the verdict is not padded.
      const bool left = c == 0 || c >= 7;
      const bool last = c + 1 == cells.size();
      line += " " + (last   ? cells[c]
                     : left ? fmt::format("{:<{}}", cells[c], width[c])
                            : fmt::format("{:>{}}", cells[c], width[c]));
    }
    out += line + "\n";
  }
  return out;
}

documents::ReportTable set_summary_table(const std::string& id,
                                         std::span<const SetResult> results) {
  documents::ReportTable table{id, kSummaryColumns, {}};
  for (const SetResult& r : results)
    table.add_row(summary_cells(r));
  return table;
}

std::string set_verdict_line(std::span<const SetResult> results) {
  const int failed = count_set_failures(results);
  const auto above = std::count_if(results.begin(), results.end(),
                                   [](const SetResult& r) { return r.above_aim(); });
  const auto partial =
      std::count_if(results.begin(), results.end(), [](const SetResult& r) { return !r.judged(); });
  return fmt::format(
      "{} set{}, {}, {} above aim{}", results.size(), results.size() == 1 ? "" : "s",
      failed == 0 ? "none outside tolerance" : fmt::format("{} OUTSIDE TOLERANCE", failed), above,
      partial > 0 ? fmt::format(" ({} partial)", partial) : "");
}

nlohmann::ordered_json set_json(const SetResult& r) {
  using nlohmann::ordered_json;
  auto number = [](double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(); };
  auto bounds = [](const std::vector<SetBound>& list) {
    ordered_json j = ordered_json::object();
    for (const SetBound& b : list)
      j[std::string(json_key(b.statistic))] = b.limit;
    return j;
  };
  auto keys = [](const std::vector<SetBound>& list) {
    ordered_json j = ordered_json::array();
    for (const SetBound& b : list)
      j.push_back(std::string(json_key(b.statistic)));
    return j;
  };
  const SetStats& s = r.stats;
  const bool any = s.rows > 0;
  ordered_json j;
  j["name"] = r.set->name;
  j["what"] = r.set->what;
  j["reproductions"] = r.set->reproductions;
  j["judged"] = r.judged();
  j["missing_reproductions"] = r.missing;
  j["rows"] = s.rows;
  j["left_out"] = s.left_out;
  j["mean_abs_error"] = any ? number(s.mean_abs) : ordered_json();
  j["median_abs_error"] = any ? number(s.median_abs) : ordered_json();
  j["p90_abs_error"] = any ? number(s.p90_abs) : ordered_json();
  j["max_abs_error"] = any ? number(s.max_abs) : ordered_json();
  j["bias"] = any ? number(s.bias) : ordered_json();
  j["tolerance"] = bounds(r.set->tolerance);
  j["aim"] = bounds(r.set->aim);
  j["outside_tolerance"] = r.judged() ? keys(r.exceeded(r.set->tolerance)) : ordered_json::array();
  j["above_aim"] = r.judged() ? keys(r.exceeded(r.set->aim)) : ordered_json::array();
  j["verdict"] = r.verdict();
  return j;
}

}  // namespace trainsim::reproductions
