#pragma once
// What the tensor-parallel reproductions (Optimus, Tesseract, later the 3D paper) share on top
// of compare_tensor_schemes (reports/scheme_comparison.hpp): their tolerance, the check that a
// reproduction's scenario files state the plans it runs, and the variants and empty tables of
// their sweeps over hidden size and batch.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/scenario.hpp"
#include "reports/scheme_comparison.hpp"
#include "reports/sweep.hpp"

namespace trainsim::reports {

/// Issue 4: each headline ratio of the tensor-parallel reproductions aims at 10 % and must stay
/// within 20 % of the published figure at the stated configuration.
inline constexpr double kRatioAim = 0.10;
inline constexpr double kRatioTolerance = 0.20;

/// Throws std::logic_error unless `row` ran `stated`'s tensor plan (the scenario files of a
/// reproduction state each scheme's layout, and compare_tensor_schemes derives the same from
/// the first file), std::runtime_error if it could not run.
void check_states_plan(const SchemeResult& row, const Scenario& stated);

/// The step time of `a` over that of `b` (how much faster b trains); NaN when either could
/// not run.
double step_ratio(const SchemeResult& a, const SchemeResult& b);

/// "1D over memory", "1D, 2.5D over memory" or "" when every scheme's training step fits.
std::string memory_note(std::span<const SchemeResult> rows);

/// `scenario` with another hidden size (ffn = 4 x hidden; heads unchanged).
Scenario with_hidden(Scenario scenario, std::int64_t hidden);

/// `scenario` with another global batch, one micro batch per data-parallel replica.
Scenario with_batch(Scenario scenario, std::int64_t global_batch);

/// What a sweep varies.
enum class SweepAxis { hidden, batch };

/// `scenario` with the axis set to `value` (with_hidden or with_batch).
Scenario varied(const Scenario& scenario, SweepAxis axis, std::int64_t value);

/// An empty sweep over `axis` of the scenarios like `stated`: id "sweep-hidden" or
/// "sweep-batch", a title "<what> vs <axis> (<GPUs> GPUs, <the other axis' value>)", the
/// x label, and one empty series per name.
Sweep sweep_over(SweepAxis axis, const Scenario& stated, std::string_view what, std::string y_label,
                 const std::vector<std::string>& series);

/// The stated configuration's value on `axis`, where the published figure is drawn.
double stated_value(const Scenario& stated, SweepAxis axis);

}  // namespace trainsim::reports
