#include "reproductions/comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace trainsim::reproductions {

bool Comparison::within_aim() const {
  return std::fabs(signed_error()) <= aim;
}

bool Comparison::within_tolerance() const {
  return std::isfinite(predicted) && std::fabs(signed_error()) <= tolerance;
}

bool Comparison::explained_failure() const {
  return not_reproduced.has_value() && std::isfinite(predicted) && !within_tolerance() &&
         not_reproduced->evidence_holds;
}

const char* Comparison::verdict() const {
  if (not_reproduced) {
    return explained_failure()  ? "NOT REPRODUCED (below)"
           : within_tolerance() ? "FAIL (now within tolerance: revisit the verdict)"
                                : "FAIL (its evidence no longer holds)";
  }
  if (!within_tolerance()) return "FAIL";
  if (setup_from_map) return "ok (setup from its map)";
  return within_aim() ? "ok" : "ok (> aim)";
}

namespace {
std::string number(double value) {
  return fmt::format("{:.4g}", value);
}
}  // namespace

std::string format_comparisons(const std::string& title, const std::vector<Comparison>& rows) {
  std::size_t width = 6;
  for (const Comparison& c : rows)
    width = std::max(width, c.figure.size());
  std::string out = title + "\n";
  out += fmt::format("  {:<{}}  {:>12}  {:>12}  {:>8}  {:>9}  {}\n", "figure", width, "published",
                     "ours", "error", "tolerance", "verdict");
  for (const Comparison& c : rows) {
    const char* verdict = c.verdict();
    out += fmt::format("  {:<{}}  {:>12}  {:>12}  {:>+7.1f}%  {:>8.0f}%  {}\n", c.figure, width,
                       number(c.published) + " " + c.unit, number(c.predicted) + " " + c.unit,
                       100.0 * c.signed_error(), 100.0 * c.tolerance, verdict);
  }
  std::vector<std::string> sources;
  for (const Comparison& c : rows) {
    if (std::find(sources.begin(), sources.end(), c.source) == sources.end()) {
      sources.push_back(c.source);
    }
  }
  for (const std::string& s : sources)
    out += fmt::format("  source: {}\n", s);
  for (const Comparison& c : rows) {
    if (c.not_reproduced) {
      out += fmt::format("  not reproduced, {}: {}\n    evidence: {}\n", c.figure,
                         c.not_reproduced->why, c.not_reproduced->evidence);
    }
  }
  return out;
}

int count_failures(const std::vector<Comparison>& rows) {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [](const Comparison& c) {
    if (c.not_reproduced) return !c.explained_failure();
    return !c.within_tolerance();
  }));
}

}  // namespace trainsim::reproductions
