// Tesseract, Wang et al. 2022, "Tesseract: Parallelize the Tensor Parallelism Efficiently"
// (arXiv 2105.14500), as summarised in published-results.md §5: on nodes of 4 A100, 2.5D tensor
// parallelism scales strongly 1.38x better than 1D and 1.53x better than 2D. The configuration
// is not published; the stated one (scenarios/tesseract2022/, reports/tesseract2022/README.md)
// runs one model on the same 64 GPUs under the three schemes, and the sweeps show how the
// ratios move with hidden size and batch.

#include "reports/reproductions/tesseract2022.hpp"

#include <fmt/format.h>

#include <array>
#include <span>
#include <string>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "reports/reproductions/tensor_schemes.hpp"

namespace trainsim::reports {
namespace {

constexpr const char* kSource = "Wang et al. 2022, Tesseract (arXiv 2105.14500), strong scaling";
constexpr double kOver1d = 1.38;
constexpr double kOver2d = 1.53;

constexpr std::array<std::int64_t, 4> kHiddenSweep{2048, 4096, 8192, 12288};
constexpr std::array<std::int64_t, 5> kBatchSweep{16, 32, 64, 128, 256};

struct Schemes {
  Scenario one_d;
  Scenario two_d;
  Scenario two_half_d;
  hw::HardwareProfile hardware;
};

struct Figures {
  SchemeFigures one_d;
  SchemeFigures two_d;
  SchemeFigures two_half_d;
  double over_1d() const { return one_d.step.seconds() / two_half_d.step.seconds(); }
  double over_2d() const { return two_d.step.seconds() / two_half_d.step.seconds(); }
  std::string memory_note() const {
    std::string over;
    for (const auto& [name, f] :
         {std::pair{"1D", &one_d}, std::pair{"2D", &two_d}, std::pair{"2.5D", &two_half_d}}) {
      if (!f->fits) over += over.empty() ? name : std::string(", ") + name;
    }
    return over.empty() ? "" : over + " over memory";
  }
};

template <typename Vary>
Figures figures(const Schemes& s, Vary vary) {
  return {measure_scheme(vary(s.one_d), s.hardware, false),
          measure_scheme(vary(s.two_d), s.hardware, false),
          measure_scheme(vary(s.two_half_d), s.hardware, false)};
}

Sweep speedup_sweep(const Schemes& s, SweepAxis axis, std::span<const std::int64_t> values) {
  Sweep sweep = sweep_over(axis, s.one_d, "Tesseract 2.5D over 1D and 2D",
                           "step-time speedup of 2.5D", {"2.5D / 1D", "2.5D / 2D"});
  for (const std::int64_t x : values) {
    const Figures f = figures(s, [axis, x](const Scenario& v) { return varied(v, axis, x); });
    sweep.add_row(static_cast<double>(x), {f.over_1d(), f.over_2d()}, f.memory_note());
  }
  const double at = stated_value(s.one_d, axis);
  sweep.references = {{at, kOver1d, "1.38x over 1D"}, {at, kOver2d, "1.53x over 2D"}};
  return sweep;
}

}  // namespace

ReproductionReport run_tesseract2022(const std::filesystem::path& root,
                                     const ReproductionOptions& options) {
  const std::filesystem::path dir = root / "scenarios/tesseract2022";
  Schemes s{inputs::load_scenario(dir / "gpt-1d.yaml"),
            inputs::load_scenario(dir / "gpt-2d.yaml"),
            inputs::load_scenario(dir / "gpt-2p5d.yaml"),
            {}};
  s.hardware = inputs::load_hardware_profile(s.one_d.hardware_file);
  const Figures f = figures(s, [](const Scenario& x) { return x; });

  ReproductionReport report;
  const std::string config =
      fmt::format("64 GPUs, h {}, batch {}", s.one_d.model.hidden, s.one_d.training.global_batch);
  report.comparisons.push_back(
      {fmt::format("strong scaling: 2.5D (q 4, d 4) over 1D (t 64), {}", config), kSource, "x",
       kOver1d, f.over_1d(), kRatioAim, kRatioTolerance});
  report.comparisons.push_back(
      {fmt::format("strong scaling: 2.5D (q 4, d 4) over 2D (q 8), {}", config), kSource, "x",
       kOver2d, f.over_2d(), kRatioAim, kRatioTolerance});
  report.notes = fmt::format(
      "At the stated configuration on {}: step 1D {:.1f} ms, 2D {:.1f} ms, 2.5D {:.1f} ms{}.\n",
      s.hardware.name, f.one_d.step.ms(), f.two_d.step.ms(), f.two_half_d.step.ms(),
      f.memory_note().empty() ? " (all fit)" : "; " + f.memory_note());
  if (options.sweeps)
    report.sweeps = {speedup_sweep(s, SweepAxis::hidden, kHiddenSweep),
                     speedup_sweep(s, SweepAxis::batch, kBatchSweep)};
  return report;
}

}  // namespace trainsim::reports
