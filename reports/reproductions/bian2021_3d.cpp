// Bian et al. 2021, "Maximizing Parallelism in Distributed Training for Huge Neural Networks"
// (arXiv 2105.14450), as summarised in published-results.md §4: on 64 V100 GPUs at TACC
// (Longhorn), 3D tensor parallelism is 2.32x faster than 1D and 1.57x faster than 2D, by
// average step time = (forward + backward time) / batch size. The configuration is not
// published; the stated one (scenarios/bian2021-3d/, reports/bian2021-3d/README.md) runs one
// model and one batch on the same 64 GPUs under the three schemes, so the per-sample step
// times compare as the forward + backward times do; the sweeps show how the ratios move with
// hidden size and batch.

#include "reports/reproductions/bian2021_3d.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "reports/reproductions/comparison_sets.hpp"
#include "reports/reproductions/tensor_schemes.hpp"
#include "reports/scenario_run.hpp"

namespace trainsim::reports {
namespace {

constexpr const char* kSource = "Bian et al. 2021, 3D tensor parallelism (arXiv 2105.14450)";
constexpr double kOver1d = 2.32;
constexpr double kOver2d = 1.57;

constexpr std::array<std::int64_t, 4> kHiddenSweep{2048, 4096, 6144, 8192};
constexpr std::array<std::int64_t, 5> kBatchSweep{32, 64, 96, 192, 384};

// The band of 3D-over-1D ratios the explained shortfall covers (reports/bian2021-3d/README.md):
// a weight-major cube on nodes of 4 GPUs with one NIC is bound by that NIC (its input and
// output groups cross nodes). A ratio outside the band is a change to re-examine, so it
// fails; 3D over 2D has no explanation to fall back on and must stay within tolerance.
constexpr double kShortfallLow = 0.6;
constexpr double kShortfallHigh = 1.2;

// 1D (t = 64), 2D (q = 8) and 3D (q = 4) on the same 64 GPUs.
const std::array<TensorVariant, 3> kSchemes{
    {{TensorKind::one_d, {}}, {TensorKind::two_d, {}}, {TensorKind::three_d, {}}}};
const std::array<TensorVariant, 1> kCube{{{TensorKind::three_d, {}}}};

struct Stated {
  Scenario one_d;
  Scenario two_d;
  Scenario three_d;
  hw::HardwareProfile hardware;
};

// The three schemes on `scenario` (the 3D file's, so that the cube keeps its stated order;
// 1D and 2D fall back to row-major).
std::vector<SchemeResult> compare(const Scenario& scenario, const hw::HardwareProfile& hardware) {
  return compare_tensor_schemes(scenario, hardware, kSchemes, {false});
}

// The 3D scheme alone on `scenario` with the cube in `order`.
SchemeResult cube_in(Scenario scenario, GridOrder order, const hw::HardwareProfile& hardware) {
  scenario.parallel.tensor.grid_order = order;
  return compare_tensor_schemes(scenario, hardware, kCube, {false}).front();
}

// Average step time per sample: (forward + backward) / batch.
double per_sample_ms(const SchemeResult& row, const Scenario& scenario) {
  if (!row.forward_backward_time) return NAN;
  return row.forward_backward_time->ms() / static_cast<double>(scenario.training.global_batch);
}

// How much faster `b` is than `a` by (forward + backward) / batch (the batch is the same).
double speedup(const SchemeResult& a, const SchemeResult& b) {
  if (!a.forward_backward_time || !b.forward_backward_time) return NAN;
  return *a.forward_backward_time / *b.forward_backward_time;
}

Sweep speedup_sweep(const Stated& s, SweepAxis axis, std::span<const std::int64_t> values) {
  Sweep sweep = sweep_over(axis, s.three_d, "Bian et al. 3D over 1D and 2D",
                           "speedup of 3D, (fwd + bwd) / batch",
                           {"3D / 1D", "3D / 2D", "3D / 1D output-major", "3D / 2D output-major"});
  for (const std::int64_t x : values) {
    const Scenario scenario = varied(s.three_d, axis, x);
    const auto rows = compare(scenario, s.hardware);
    const SchemeResult output_major = cube_in(scenario, GridOrder::output_major, s.hardware);
    sweep.add_row(static_cast<double>(x),
                  {speedup(rows[0], rows[2]), speedup(rows[1], rows[2]),
                   speedup(rows[0], output_major), speedup(rows[1], output_major)},
                  memory_note(rows));
  }
  const double at = stated_value(s.three_d, axis);
  sweep.references = {{at, kOver1d, "2.32x over 1D"}, {at, kOver2d, "1.57x over 2D"}};
  return sweep;
}

// The measured explanation of 3D over 1D outside tolerance.
std::string shortfall_over_1d(double output_major_ratio, double exposed_share) {
  return fmt::format(
      "the weight-major cube (ColossalAI's rank layout) keeps only the weight group on a node; "
      "its input and output groups, which move the activations, cross nodes, and the 4 GPUs "
      "of a node share one 100 Gb/s NIC, so {:.0f} % of 3D's step is exposed communication; "
      "the output-major cube of the same model reaches {:.2f}x ({:+.0f} %); "
      "reports/bian2021-3d/README.md",
      100.0 * exposed_share, output_major_ratio, 100.0 * (output_major_ratio - kOver1d) / kOver1d);
}

}  // namespace

ReproductionReport run_bian2021_3d(const std::filesystem::path& root,
                                   const ReproductionOptions& options) {
  const std::filesystem::path dir = root / "scenarios/bian2021-3d";
  Stated s{inputs::load_scenario(dir / "gpt-1d.yaml"),
           inputs::load_scenario(dir / "gpt-2d.yaml"),
           inputs::load_scenario(dir / "gpt-3d.yaml"),
           {}};
  s.hardware = inputs::scenario_hardware(s.three_d);
  const auto rows = compare(s.three_d, s.hardware);
  check_states_plan(rows[0], s.one_d);
  check_states_plan(rows[1], s.two_d);
  check_states_plan(rows[2], s.three_d);

  const SchemeResult output_major = cube_in(s.three_d, GridOrder::output_major, s.hardware);
  // Exposed tensor-parallel communication of the stated cube, on its first GPU.
  const ScenarioRun cube = run_scenario(s.three_d, s.hardware);
  const double exposed =
      cube.result.breakdown.front().exposed_comm[static_cast<std::size_t>(program::GroupKind::tp)] /
      cube.result.iteration_time;

  ReproductionReport report;
  const std::string config =
      fmt::format("64 GPUs, h {}, batch {}, {} cube", s.three_d.model.hidden,
                  s.three_d.training.global_batch, to_string(s.three_d.parallel.tensor.grid_order));
  const double over_1d = speedup(rows[0], rows[2]);
  report.comparisons.push_back(
      {fmt::format("(fwd + bwd) / batch: 3D (q 4) over 1D (t 64), {}", config), kSource, "x",
       kOver1d, over_1d, kRatioAim, kRatioTolerance,
       shortfall_over_1d(speedup(rows[0], output_major), exposed), kShortfallLow, kShortfallHigh});
  report.comparisons.push_back(
      {fmt::format("(fwd + bwd) / batch: 3D (q 4) over 2D (q 8), {}", config), kSource, "x",
       kOver2d, speedup(rows[1], rows[2]), kRatioAim, kRatioTolerance, ""});
  const std::string over = memory_note(rows);
  report.notes = fmt::format(
      "At the stated configuration on {}: (forward + backward) / batch 1D {:.1f} ms, 2D {:.1f} "
      "ms, 3D {:.1f} ms (output-major cube {:.1f} ms); training step with the optimizer 1D "
      "{:.2f} s, 2D {:.2f} s, 3D {:.2f} s{}.\n",
      s.hardware.name, per_sample_ms(rows[0], s.three_d), per_sample_ms(rows[1], s.three_d),
      per_sample_ms(rows[2], s.three_d), per_sample_ms(output_major, s.three_d),
      rows[0].step_time->seconds(), rows[1].step_time->seconds(), rows[2].step_time->seconds(),
      over.empty() ? " (all fit)" : "; " + over);
  for (Comparison& c : report.comparisons)
    c.set = set_names::kBian;
  if (options.sweeps) {
    report.sweeps = {speedup_sweep(s, SweepAxis::hidden, kHiddenSweep),
                     speedup_sweep(s, SweepAxis::batch, kBatchSweep)};
  }
  return report;
}

}  // namespace trainsim::reports
