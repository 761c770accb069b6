#pragma once
// A claim map (issue 18): where, among the setups a paper leaves unknown, its published ratio
// arises. A seed paper states a ratio ("2D trains 1.48x faster than 1D on 64 GPUs") but not
// all of the setup behind it: hidden size, batch, NICs per node, rank order, recomputation,
// the baseline's layout. A map names each unknown as an axis of values, marks which values are
// plausible for the paper's machine (with the source that says so) and which one stands for
// the paper's own (the stated setup), and evaluates our ratio
//
//   - along each axis through the paper's machine (a line per unknown: how far the setup can
//     move before the ratio leaves the published figure's tolerance, reverses or halves),
//   - over a grid of two unknowns chosen per claim (the heat map of the report), and
//   - by a coordinate search over the plausible values for the setup whose ratio is closest
//     to the published one (is there any plausible setup that gives it?).
//
// The tolerance is the published figure's, fixed before the run; nothing here depends on
// where our own figure falls. A setup at which a scheme of the comparison cannot run or does
// not fit in memory is infeasible (the paper ran every scheme it compares) and never counts as
// reproducing the figure.

#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace trainsim::reproductions::claim_maps {

/// Our ratio at one setup.
struct MapValue {
  double ratio = std::numeric_limits<double>::quiet_NaN();
  /// Every scheme of the comparison runs and fits in memory at this setup.
  bool feasible = true;
  std::string note;  ///< why not feasible, or what to know ("1D over memory")
};

/// One value an unknown can take.
struct AxisValue {
  std::string label;  ///< "4096", "2 NICs", "output-major"
  /// Plausible for the paper's machine (Axis::why says which values are, and why).
  bool plausible = true;
};

/// One unknown of the paper's setup.
struct Axis {
  std::string name;  ///< "hidden size"
  std::vector<AxisValue> values;
  std::size_t paper = 0;  ///< index of the value that stands for the paper's machine
  std::string why;        ///< the plausible values and the source that says so
};

/// One value index per axis.
using MapPoint = std::vector<std::size_t>;

/// A claim and its unknowns.
struct ClaimMapSpec {
  std::string id;      ///< "optimus-training": file stem of the plot, block names
  std::string paper;   ///< the reproduction it belongs to ("optimus2021")
  std::string claim;   ///< "2D over 1D training speedup, 64 GPUs of Frontera"
  std::string source;  ///< where the paper states the figure
  std::string unit = "x";
  /// The comparison row whose verdict this map decides, if any ("the 3D-over-1D row").
  std::string decides;
  double published = 0.0;
  double tolerance = 0.20;  ///< relative, the published figure's (fixed before any run)
  /// What makes a setup infeasible here (the heat map's legend, the reports' notes).
  std::string infeasible_means = "a scheme cannot run or does not fit in memory";
  std::vector<Axis> axes;
  std::size_t grid_x = 0;  ///< the heat map's axes (indices into `axes`)
  std::size_t grid_y = 1;
  /// Axes whose plausible values are all tried together (every combination, the other axes at
  /// the paper's machine) before the search: for unknowns that only move the figure together
  /// (one experiment's batch and another's hidden size on one machine), where a search that
  /// moves one or two at a time can miss the setup. Empty: none.
  std::vector<std::size_t> exhaustive_axes;
  /// Our ratio at a point; called from several threads at once, so it must not share
  /// mutable state. May throw only for a bug: an infeasible setup is a MapValue.
  std::function<MapValue(const MapPoint&)> evaluate;

  /// The paper's machine: every axis at its `paper` value.
  MapPoint paper_point() const;
  /// Every axis at a plausible value.
  bool plausible(const MapPoint& point) const;
  /// "hidden size 4096, batch 96, …" (every axis).
  std::string describe(const MapPoint& point) const;
  /// Only the axes that differ from the paper's machine ("the paper's machine" when none).
  std::string describe_change(const MapPoint& point) const;
  /// Throws std::invalid_argument naming what is wrong: no axes, an axis without values, a
  /// `paper` index out of range or not plausible, grid axes equal or out of range, an
  /// exhaustive axis out of range, no evaluator, a published figure or tolerance that is not
  /// positive.
  void validate() const;
};

/// Our ratio along one axis, the others at the paper's machine.
struct MapLine {
  std::size_t axis = 0;
  std::vector<MapValue> values;  ///< one per value of the axis
};

/// What a map found.
struct ClaimMap {
  ClaimMapSpec spec;
  MapValue at_paper;
  std::vector<MapLine> lines;  ///< one per axis, in axis order
  /// The heat map: grid[y][x] over spec.axes[grid_y] × spec.axes[grid_x], the other axes at
  /// the paper's machine.
  std::vector<std::vector<MapValue>> grid;
  /// The plausible, feasible setup whose ratio the search found closest to the published one
  /// (log distance), and its value; the paper's machine when nothing plausible is feasible.
  MapPoint closest;
  MapValue closest_value;
  /// Among every plausible, feasible setup evaluated within the tolerance, the one that
  /// changes the fewest unknowns from the paper's machine (then the closest, then the first in
  /// point order); absent when none was found.
  std::optional<MapPoint> fewest_changes;
  std::optional<MapValue> fewest_changes_value;
  std::size_t evaluations = 0;  ///< distinct setups evaluated
  /// The search stopped because a round moved nothing (false: it ran out of rounds).
  bool converged = false;

  /// Feasible and within the published figure's tolerance.
  bool within(const MapValue& value) const;
  /// Some plausible, feasible setup gives the published figure within its tolerance.
  bool reproduced_plausibly() const { return fewest_changes.has_value(); }
  /// (ours − published) / published at `value`.
  double signed_error(const MapValue& value) const;
};

/// Evaluates `spec` (lines, grid, the exhaustive axes, then the search, each batch of setups
/// on up to `threads`
/// threads, 0: one per core). Deterministic: the result does not depend on `threads`. The
/// search starts from the plausible, feasible setup closest to the published figure among
/// those the lines and the grid evaluated, and moves one axis at a time to the plausible value
/// that brings the ratio closest (log distance); where the closest move of an axis is
/// infeasible but nearer the figure, it also tries every single move of another axis from
/// there (a batch that fits only with more memory). It stops when a round over every axis
/// moves nothing (at most `kMaxSearchRounds`): a local optimum, as the report says.
ClaimMap run_claim_map(ClaimMapSpec spec, unsigned threads = 0);

/// The coordinate search's bound on rounds over every axis.
inline constexpr int kMaxSearchRounds = 4;

}  // namespace trainsim::reproductions::claim_maps
