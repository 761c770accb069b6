// Optimus, Xu et al. 2021, "An Efficient 2D Method for Training Super-Large Deep Learning
// Models" (arXiv 2104.05343), as summarised in published-results.md §3: on 64 GPUs of TACC
// Frontera (rtx nodes), Optimus's 2D tensor parallelism against Megatron's 1D: 1.48x training
// speedup, 1.78x inference speedup, 8x the maximum batch. The configuration behind the figures
// is not published; the stated one is in scenarios/optimus2021/ and reports/optimus2021/README.md,
// and the sweeps show how the ratios move with hidden size and batch.

#include "reports/reproductions/optimus2021.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "reports/reproductions/comparison_sets.hpp"
#include "reports/reproductions/tensor_schemes.hpp"

namespace trainsim::reports {
namespace {

constexpr const char* kSource = "Xu et al. 2021, Optimus (arXiv 2104.05343), abstract";
constexpr double kTrainingSpeedup = 1.48;
constexpr double kInferenceSpeedup = 1.78;
constexpr double kMaxBatchRatio = 8.0;
// The band the max-batch shortfall's explanation covers: with checkpointing, 1D's memory is
// dominated by the replicated layer inputs that 2D splits 64 ways, which put the ratio near
// 20x (measured 20.2x); a modelling change that moves it beyond ±50 % of that is no longer
// explained by this and must fail.
constexpr double kShortfallLow = 13.0;
constexpr double kShortfallHigh = 30.0;

constexpr std::array<std::int64_t, 4> kHiddenSweep{1024, 2048, 4096, 8192};
constexpr std::array<std::int64_t, 5> kBatchSweep{24, 48, 96, 192, 384};

const std::array<TensorVariant, 2> kSchemes{{{TensorKind::one_d, {}}, {TensorKind::two_d, {}}}};

struct Stated {
  Scenario one_d;
  Scenario two_d;
  hw::HardwareProfile hardware;
};

// 1D and 2D on `scenario`'s model, batch and GPUs; rows[1] holds 2D's ratios over 1D.
std::vector<SchemeResult> compare(const Scenario& scenario, const hw::HardwareProfile& hardware,
                                  bool max_batch) {
  return compare_tensor_schemes(scenario, hardware, kSchemes, {max_batch});
}

double value(const std::optional<double>& ratio) {
  return ratio.value_or(NAN);
}

Sweep speedup_sweep(const Stated& p, SweepAxis axis, std::span<const std::int64_t> values) {
  Sweep s = sweep_over(axis, p.one_d, "Optimus 2D over Megatron 1D", "speedup 2D / 1D",
                       {"training 2D/1D", "inference 2D/1D"});
  for (const std::int64_t x : values) {
    const auto rows = compare(varied(p.one_d, axis, x), p.hardware, false);
    s.add_row(static_cast<double>(x),
              {value(rows[1].step_speedup), value(rows[1].inference_speedup)}, memory_note(rows));
  }
  const double at = stated_value(p.one_d, axis);
  s.references = {{at, kTrainingSpeedup, "training 1.48x"},
                  {at, kInferenceSpeedup, "inference 1.78x"}};
  return s;
}

Scenario without_checkpointing(Scenario s) {
  s.parallel.recompute = Recompute::none;
  return s;
}

Sweep max_batch_sweep(const Stated& p) {
  Sweep s;
  s.id = "sweep-max-batch";
  s.title = "Optimus 2D over Megatron 1D: largest training batch vs hidden size (64 GPUs)";
  s.x_label = "hidden size";
  s.y_label = "max batch 2D / 1D";
  s.series = {{"full recompute", {}}, {"no recompute", {}}};
  for (const std::int64_t h : kHiddenSweep) {
    const auto full = compare(with_hidden(p.one_d, h), p.hardware, true);
    const auto none = compare(without_checkpointing(with_hidden(p.one_d, h)), p.hardware, true);
    const auto largest = [](const SchemeResult& r) {
      return r.max_batch ? r.max_batch->global_batch : 0;
    };
    s.add_row(static_cast<double>(h),
              {value(full[1].max_batch_ratio), value(none[1].max_batch_ratio)},
              fmt::format("1D {} / {}, 2D {} / {}", largest(full[0]), largest(none[0]),
                          largest(full[1]), largest(none[1])));
  }
  s.references = {{stated_value(p.one_d, SweepAxis::hidden), kMaxBatchRatio, "8x"}};
  return s;
}

}  // namespace

ReproductionReport run_optimus2021(const std::filesystem::path& root,
                                   const ReproductionOptions& options) {
  const std::filesystem::path dir = root / "scenarios/optimus2021";
  Stated p{
      inputs::load_scenario(dir / "gpt-1d.yaml"), inputs::load_scenario(dir / "gpt-2d.yaml"), {}};
  p.hardware = inputs::scenario_hardware(p.one_d);
  const auto rows = compare(p.one_d, p.hardware, true);
  check_states_plan(rows[0], p.one_d);
  check_states_plan(rows[1], p.two_d);
  const SchemeResult& two_d = rows[1];

  ReproductionReport report;
  const std::string config = fmt::format(
      "h {}, {} heads, batch {}, seq {}, {} layers", p.one_d.model.hidden, p.one_d.model.heads,
      p.one_d.training.global_batch, p.one_d.model.seq_len, p.one_d.model.layers);
  report.comparisons.push_back(
      {fmt::format("64 GPUs, 2D (q 8) over 1D (t 64), {}: training speedup (full recompute)",
                   config),
       kSource, "x", kTrainingSpeedup, value(two_d.step_speedup), kRatioAim, kRatioTolerance, ""});
  report.comparisons.push_back(
      {"64 GPUs, 2D over 1D, same model and batch: inference speedup (forward only)", kSource, "x",
       kInferenceSpeedup, value(two_d.inference_speedup), kRatioAim, kRatioTolerance, ""});
  Comparison max_batch{"64 GPUs, 2D over 1D, same model: largest training batch",
                       kSource,
                       "x",
                       kMaxBatchRatio,
                       value(two_d.max_batch_ratio),
                       kRatioAim,
                       kRatioTolerance,
                       "",
                       kShortfallLow,
                       kShortfallHigh};
  // The same model without checkpointing, measured rather than quoted, for the explanation.
  const auto none = compare(without_checkpointing(p.one_d), p.hardware, true);
  max_batch.shortfall = fmt::format(
      "with activation checkpointing (the authors' script, and the configuration of all three "
      "rows) 1D keeps every layer's [b, s, h] input on all 64 GPUs and 2D 1/64 of it, so 2D "
      "fits {:.1f}x the batch; the same model without checkpointing gives {:.2f}x ({:+.1f} %), "
      "but choosing a configuration per row is the per-row knob we refuse; the paper's 8x lies "
      "between and its configuration is unknown (reports/optimus2021/README.md)",
      value(two_d.max_batch_ratio), value(none[1].max_batch_ratio),
      100.0 * (value(none[1].max_batch_ratio) / kMaxBatchRatio - 1.0));
  report.comparisons.push_back(std::move(max_batch));
  report.notes = fmt::format(
      "At the stated configuration on {}: training step 1D {:.2f} s, 2D {:.2f} s; inference 1D "
      "{:.2f} s, 2D {:.2f} s; largest training batch 1D {}, 2D {}{}.\n",
      p.hardware.name, rows[0].step_time->seconds(), two_d.step_time->seconds(),
      rows[0].inference_time->seconds(), two_d.inference_time->seconds(),
      rows[0].max_batch->global_batch, two_d.max_batch->global_batch,
      memory_note(rows).empty() ? "" : "; " + memory_note(rows));
  for (Comparison& c : report.comparisons)
    c.set = set_names::kOptimus;
  if (options.sweeps) {
    report.sweeps = {speedup_sweep(p, SweepAxis::hidden, kHiddenSweep),
                     speedup_sweep(p, SweepAxis::batch, kBatchSweep), max_batch_sweep(p)};
  }
  return report;
}

}  // namespace trainsim::reports
