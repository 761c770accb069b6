#pragma once
// What the tensor-parallel reproductions (Optimus, Tesseract, later the 3D paper) measure for
// one scheme of one model on one profile: the training step time, whether it fits, and on
// request the largest batch that fits; and the variants of a scenario their sweeps run.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/scenario.hpp"
#include "reports/sweep.hpp"
#include "sim/hardware_profile.hpp"
#include "units/units.hpp"

namespace trainsim::reports {

/// Issue 4: each headline ratio of the tensor-parallel reproductions aims at 10 % and must stay
/// within 20 % of the published figure at the stated configuration.
inline constexpr double kRatioAim = 0.10;
inline constexpr double kRatioTolerance = 0.20;

struct SchemeFigures {
  Time step;                   ///< one training iteration
  bool fits = false;           ///< its simulated peak fits the GPU's memory
  std::int64_t max_batch = 0;  ///< largest global batch that fits (0: not searched or none)
};

/// Simulates `scenario` on `hardware`; with `search_max_batch` also runs the max-batch search
/// (sim/max_batch.hpp: the micro-batch count per replica kept, so the global batch grows).
SchemeFigures measure_scheme(const Scenario& scenario, const hw::HardwareProfile& hardware,
                             bool search_max_batch);

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
