// Optimus, Xu et al. 2021, "An Efficient 2D Method for Training Super-Large Deep Learning
// Models" (arXiv 2104.05343), as summarised in published-results.md §3: on 64 GPUs of TACC
// Frontera (rtx nodes), Optimus's 2D tensor parallelism against Megatron's 1D: 1.48x training
// speedup, 1.78x inference speedup, 8x the maximum batch. The configuration behind the figures
// is not published; the stated one (scenarios/optimus2021/, reports/optimus2021/README.md) is
// the authors' benchmark script weak-scaled to 64 GPUs, and the sweeps show how the ratios move
// with hidden size and batch.

#include "reports/reproductions/optimus2021.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <span>
#include <string>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "reports/reproductions/tensor_schemes.hpp"

namespace trainsim::reports {
namespace {

constexpr const char* kSource = "Xu et al. 2021, Optimus (arXiv 2104.05343), abstract";
constexpr double kTrainingSpeedup = 1.48;
constexpr double kMaxBatchRatio = 8.0;

constexpr std::array<std::int64_t, 4> kHiddenSweep{1024, 2048, 4096, 8192};
constexpr std::array<std::int64_t, 5> kBatchSweep{24, 48, 96, 192, 384};

struct Pair {
  Scenario one_d;
  Scenario two_d;
  hw::HardwareProfile hardware;
};

// The training figures of 2D over 1D for one configuration. The inference speedup joins them
// once `training.mode: inference` exists (issue 4, item 2).
struct TrainingFigures {
  SchemeFigures one_d;
  SchemeFigures two_d;
  double speedup() const { return one_d.step.seconds() / two_d.step.seconds(); }
  double max_batch_ratio() const {
    return one_d.max_batch > 0
               ? static_cast<double>(two_d.max_batch) / static_cast<double>(one_d.max_batch)
               : NAN;
  }
};

TrainingFigures training_figures(const Scenario& one_d, const Scenario& two_d,
                                 const hw::HardwareProfile& hardware, bool max_batch) {
  return {measure_scheme(one_d, hardware, max_batch), measure_scheme(two_d, hardware, max_batch)};
}

std::string memory_note(const TrainingFigures& f) {
  if (f.one_d.fits && f.two_d.fits) return "";
  if (!f.one_d.fits && !f.two_d.fits) return "both over memory";
  return f.one_d.fits ? "2D over memory" : "1D over memory";
}

Sweep speedup_sweep(const Pair& p, SweepAxis axis, std::span<const std::int64_t> values) {
  Sweep s = sweep_over(axis, p.one_d, "Optimus 2D over Megatron 1D", "training speedup 2D / 1D",
                       {"training 2D/1D"});
  for (const std::int64_t x : values) {
    const TrainingFigures f =
        training_figures(varied(p.one_d, axis, x), varied(p.two_d, axis, x), p.hardware, false);
    s.add_row(static_cast<double>(x), {f.speedup()}, memory_note(f));
  }
  s.references = {{stated_value(p.one_d, axis), kTrainingSpeedup, "1.48x (configuration unknown)"}};
  return s;
}

Sweep max_batch_sweep(const Pair& p) {
  Sweep s;
  s.id = "sweep-max-batch";
  s.title = "Optimus 2D over Megatron 1D: largest batch that fits vs hidden size (64 GPUs)";
  s.x_label = "hidden size";
  s.y_label = "max batch 2D / 1D";
  s.series = {{"max batch 2D/1D", {}}};
  for (const std::int64_t h : kHiddenSweep) {
    const TrainingFigures f =
        training_figures(with_hidden(p.one_d, h), with_hidden(p.two_d, h), p.hardware, true);
    s.add_row(static_cast<double>(h), {f.max_batch_ratio()},
              fmt::format("1D {}, 2D {}", f.one_d.max_batch, f.two_d.max_batch));
  }
  s.references = {
      {static_cast<double>(p.one_d.model.hidden), kMaxBatchRatio, "8x (configuration unknown)"}};
  return s;
}

}  // namespace

ReproductionReport run_optimus2021(const std::filesystem::path& root,
                                   const ReproductionOptions& options) {
  const std::filesystem::path dir = root / "scenarios/optimus2021";
  Pair p{
      inputs::load_scenario(dir / "gpt-1d.yaml"), inputs::load_scenario(dir / "gpt-2d.yaml"), {}};
  p.hardware = inputs::load_hardware_profile(p.one_d.hardware_file);
  const TrainingFigures f = training_figures(p.one_d, p.two_d, p.hardware, true);

  ReproductionReport report;
  const std::string config =
      fmt::format("64 GPUs, h {}, {} heads, batch {}, seq {}, {} layers, full recompute",
                  p.one_d.model.hidden, p.one_d.model.heads, p.one_d.training.global_batch,
                  p.one_d.model.seq_len, p.one_d.model.layers);
  report.comparisons.push_back({fmt::format("training speedup 2D (q 8) over 1D (t 64), {}", config),
                                kSource, "x", kTrainingSpeedup, f.speedup(), kRatioAim,
                                kRatioTolerance});
  report.comparisons.push_back({"maximum batch 2D / 1D (max-batch search, same model)", kSource,
                                "x", kMaxBatchRatio, f.max_batch_ratio(), kRatioAim,
                                kRatioTolerance});
  report.notes = fmt::format(
      "At the stated configuration on {}: 1D step {:.3f} s ({}), 2D step {:.3f} s ({}); largest "
      "batch 1D {}, 2D {}.\n"
      "The inference speedup (published 1.78x) is compared once training.mode: inference "
      "exists.\n",
      p.hardware.name, f.one_d.step.seconds(), f.one_d.fits ? "fits" : "over memory",
      f.two_d.step.seconds(), f.two_d.fits ? "fits" : "over memory", f.one_d.max_batch,
      f.two_d.max_batch);
  if (options.sweeps)
    report.sweeps = {speedup_sweep(p, SweepAxis::hidden, kHiddenSweep),
                     speedup_sweep(p, SweepAxis::batch, kBatchSweep), max_batch_sweep(p)};
  return report;
}

}  // namespace trainsim::reports
