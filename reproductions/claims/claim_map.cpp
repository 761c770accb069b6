#include "reproductions/claims/claim_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "models/parallel_for.hpp"

namespace trainsim::reproductions::claim_maps {

MapPoint ClaimMapSpec::paper_point() const {
  MapPoint p;
  p.reserve(axes.size());
  for (const Axis& a : axes)
    p.push_back(a.paper);
  return p;
}

bool ClaimMapSpec::plausible(const MapPoint& point) const {
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (!axes[i].values[point[i]].plausible) return false;
  }
  return true;
}

std::string ClaimMapSpec::describe(const MapPoint& point) const {
  std::string out;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", axes[i].name,
                       axes[i].values[point[i]].label);
  }
  return out;
}

std::string ClaimMapSpec::describe_change(const MapPoint& point) const {
  std::string out;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (point[i] == axes[i].paper) continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", axes[i].name,
                       axes[i].values[point[i]].label);
  }
  return out.empty() ? "the paper's machine" : out;
}

void ClaimMapSpec::validate() const {
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument(fmt::format("claim map '{}': {}", id, what));
  };
  if (axes.empty()) fail("no axes");
  for (const Axis& a : axes) {
    if (a.values.empty()) fail(fmt::format("axis '{}' has no values", a.name));
    if (a.paper >= a.values.size()) {
      fail(fmt::format("axis '{}': the paper's value {} is not one of its {} values", a.name,
                       a.paper, a.values.size()));
    }
    if (!a.values[a.paper].plausible) {
      fail(fmt::format("axis '{}': the paper's value '{}' is marked implausible", a.name,
                       a.values[a.paper].label));
    }
  }
  if (grid_x >= axes.size() || grid_y >= axes.size() || grid_x == grid_y) {
    fail(fmt::format("grid axes {} and {} must be two different axes of {}", grid_x, grid_y,
                     axes.size()));
  }
  for (const std::size_t a : exhaustive_axes) {
    if (a >= axes.size()) fail(fmt::format("exhaustive axis {} of {}", a, axes.size()));
  }
  if (!evaluate) fail("no evaluator");
  if (!(published > 0.0)) fail(fmt::format("published figure {} is not positive", published));
  if (!(tolerance > 0.0)) fail(fmt::format("tolerance {} is not positive", tolerance));
}

bool ClaimMap::within(const MapValue& value) const {
  return value.feasible && std::isfinite(value.ratio) &&
         std::fabs(signed_error(value)) <= spec.tolerance;
}

double ClaimMap::signed_error(const MapValue& value) const {
  return (value.ratio - spec.published) / spec.published;
}

namespace {

// Setups evaluated once each; a batch of new ones runs in parallel, each into its own slot,
// and is merged in order, so the memo's content does not depend on the thread count.
class Evaluator {
 public:
  Evaluator(const ClaimMapSpec& spec, unsigned threads) : spec_(spec), threads_(threads) {}

  /// Evaluates every point of `points` not seen yet.
  void evaluate(const std::vector<MapPoint>& points) {
    std::vector<MapPoint> fresh;
    for (const MapPoint& p : points) {
      if (memo_.count(p) == 0 && std::find(fresh.begin(), fresh.end(), p) == fresh.end()) {
        fresh.push_back(p);
      }
    }
    std::vector<MapValue> values(fresh.size());
    for_each_in_parallel(
        fresh.size(), [&](std::size_t i) { values[i] = spec_.evaluate(fresh[i]); }, threads_);
    for (std::size_t i = 0; i < fresh.size(); ++i)
      memo_.emplace(fresh[i], std::move(values[i]));
  }

  const MapValue& at(const MapPoint& point) {
    if (memo_.count(point) == 0) evaluate({point});
    return memo_.at(point);
  }

  std::size_t count() const { return memo_.size(); }
  const std::map<MapPoint, MapValue>& seen() const { return memo_; }

 private:
  const ClaimMapSpec& spec_;
  unsigned threads_;
  std::map<MapPoint, MapValue> memo_;
};

// How far a value is from the published figure: |log(ours / published)|, symmetric in the
// ratio; infinite where the setup is infeasible or the ratio unknown.
double distance(const ClaimMapSpec& spec, const MapValue& v) {
  if (!v.feasible || !std::isfinite(v.ratio) || v.ratio <= 0.0) {
    return std::numeric_limits<double>::infinity();
  }
  return std::fabs(std::log(v.ratio / spec.published));
}

MapPoint with(MapPoint p, std::size_t axis, std::size_t value) {
  p[axis] = value;
  return p;
}

}  // namespace

ClaimMap run_claim_map(ClaimMapSpec spec, unsigned threads) {
  spec.validate();
  Evaluator eval(spec, threads);
  const MapPoint paper = spec.paper_point();

  // The lines through the paper's machine and the grid, in one batch.
  std::vector<MapPoint> batch{paper};
  for (std::size_t a = 0; a < spec.axes.size(); ++a) {
    for (std::size_t v = 0; v < spec.axes[a].values.size(); ++v)
      batch.push_back(with(paper, a, v));
  }
  const std::size_t nx = spec.axes[spec.grid_x].values.size();
  const std::size_t ny = spec.axes[spec.grid_y].values.size();
  for (std::size_t y = 0; y < ny; ++y) {
    for (std::size_t x = 0; x < nx; ++x)
      batch.push_back(with(with(paper, spec.grid_y, y), spec.grid_x, x));
  }
  // Every combination of the exhaustive axes' plausible values.
  if (!spec.exhaustive_axes.empty()) {
    std::vector<MapPoint> combos{paper};
    for (const std::size_t a : spec.exhaustive_axes) {
      std::vector<MapPoint> next;
      for (const MapPoint& c : combos) {
        for (std::size_t v = 0; v < spec.axes[a].values.size(); ++v) {
          if (spec.axes[a].values[v].plausible) next.push_back(with(c, a, v));
        }
      }
      combos = std::move(next);
    }
    batch.insert(batch.end(), combos.begin(), combos.end());
  }
  eval.evaluate(batch);

  ClaimMap map{spec, eval.at(paper), {}, {}, paper, {}, {}, {}, 0, false};
  for (std::size_t a = 0; a < spec.axes.size(); ++a) {
    MapLine line{a, {}};
    for (std::size_t v = 0; v < spec.axes[a].values.size(); ++v)
      line.values.push_back(eval.at(with(paper, a, v)));
    map.lines.push_back(std::move(line));
  }
  for (std::size_t y = 0; y < ny; ++y) {
    std::vector<MapValue> row;
    for (std::size_t x = 0; x < nx; ++x)
      row.push_back(eval.at(with(with(paper, spec.grid_y, y), spec.grid_x, x)));
    map.grid.push_back(std::move(row));
  }

  // The search's start: the closest plausible setup seen so far (the first in point order
  // among equals, so the start does not depend on the order of evaluation).
  MapPoint best = paper;
  double best_distance = distance(spec, eval.at(paper));
  for (const auto& [point, value] : eval.seen()) {
    const double d = distance(spec, value);
    if (spec.plausible(point) && d < best_distance) {
      best = point;
      best_distance = d;
    }
  }
  // The plausible single-axis moves from `from`.
  auto neighbours = [&](const MapPoint& from, std::size_t axis) {
    std::vector<MapPoint> out;
    for (std::size_t v = 0; v < spec.axes[axis].values.size(); ++v) {
      if (spec.axes[axis].values[v].plausible && v != from[axis])
        out.push_back(with(from, axis, v));
    }
    return out;
  };
  auto consider = [&](const MapPoint& c) {
    const double d = distance(spec, eval.at(c));
    if (d < best_distance) {
      best = c;
      best_distance = d;
      return true;
    }
    return false;
  };
  for (int round = 0; round < kMaxSearchRounds; ++round) {
    bool moved = false;
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
      const std::vector<MapPoint> candidates = neighbours(best, a);
      eval.evaluate(candidates);
      // Infeasible moves whose ratio is nearer the published figure: a second axis may make
      // one feasible (a larger batch that fits only with more memory), which one axis at a
      // time cannot find. Each is tried with every single move of another axis.
      std::vector<MapPoint> promising;
      for (const MapPoint& c : candidates) {
        const MapValue& v = eval.at(c);
        if (!v.feasible && std::isfinite(v.ratio) && v.ratio > 0.0 &&
            std::fabs(std::log(v.ratio / spec.published)) < best_distance) {
          promising.push_back(c);
        }
      }
      for (const MapPoint& c : candidates)
        moved = consider(c) || moved;
      std::vector<MapPoint> repairs;
      for (const MapPoint& p : promising) {
        for (std::size_t b = 0; b < spec.axes.size(); ++b) {
          if (b == a) continue;
          for (MapPoint& r : neighbours(p, b))
            repairs.push_back(std::move(r));
        }
      }
      eval.evaluate(repairs);
      for (const MapPoint& r : repairs)
        moved = consider(r) || moved;
    }
    if (!moved) {
      map.converged = true;
      break;
    }
  }
  map.closest = best;
  map.closest_value = eval.at(best);
  std::size_t fewest = spec.axes.size() + 1;
  double fewest_distance = std::numeric_limits<double>::infinity();
  for (const auto& [point, value] : eval.seen()) {
    if (!spec.plausible(point) || !map.within(value)) continue;
    std::size_t changes = 0;
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
      changes += point[a] != paper[a] ? 1 : 0;
    const double d = distance(spec, value);
    if (changes < fewest || (changes == fewest && d < fewest_distance)) {
      fewest = changes;
      fewest_distance = d;
      map.fewest_changes = point;
      map.fewest_changes_value = value;
    }
  }
  map.evaluations = eval.count();
  return map;
}

}  // namespace trainsim::reproductions::claim_maps
