#pragma once
// Table, JSON and plot of `trainsim isoefficiency` (sim/analysis/isoefficiency.hpp), with the
// closed forms of the isoefficiency function beside the fitted exponents.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>

#include "documents/gnuplot_plot.hpp"
#include "documents/report_content.hpp"
#include "models/parallel_plan.hpp"
#include "models/scenario.hpp"
#include "sim/analysis/isoefficiency.hpp"

namespace trainsim::reports {

/// What an analysis of W ~ p^k predicts for one scheme and axis.
struct IsoClosedForm {
  /// Ours, from the per-device communication/compute ratio (sim/analysis/README.md): "W ~ p"
  std::string derived;
  std::optional<double> derived_exponent;  ///< none where the batch cannot restore E (1D)
  /// Optimus' forms, parallelism-reference §3.6, unverified; empty for 2.5D and 3D.
  std::string published;
};

IsoClosedForm iso_closed_form(TensorKind kind, sim::IsoAxis axis);

/// What the command was asked, for the headers.
struct IsoRequest {
  const Scenario* scenario = nullptr;
  std::string hardware;
  sim::IsoefficiencyOptions options;
};

std::string isoefficiency_text(const IsoRequest& request,
                               std::span<const sim::SchemeIsoefficiency> schemes);

/// `scenario`, `hardware`, `target`, `axis`, `max_size`, `max_gpus`, `depth_2p5d`, and per
/// scheme its points (gpus, size, step, work_flop, efficiency, t1_s, tp_s, probes), skipped
/// counts (gpus, reason, best_efficiency), the fit and the closed forms.
nlohmann::ordered_json isoefficiency_json(const IsoRequest& request,
                                          std::span<const sim::SchemeIsoefficiency> schemes);

/// The log-log plot, one line per scheme (x: p on a log2 axis; y: W on a log10 axis).
documents::PlotSpec isoefficiency_plot(const IsoRequest& request,
                                       std::span<const sim::SchemeIsoefficiency> schemes);

/// isoefficiency_plot drawn by gnuplot, written atomically.
void write_isoefficiency_plot(const std::filesystem::path& path, const IsoRequest& request,
                              std::span<const sim::SchemeIsoefficiency> schemes);

/// The analysis as report content: block `setup` (what was searched), tables `points`
/// (scheme, p, size, step, W, E, T1, Tp, probes), `skipped` (counts not reached or rejected)
/// and `fit` (fitted and closed-form exponents), and the plot `isoefficiency`.
documents::ReportContent isoefficiency_content(const IsoRequest& request,
                                               std::span<const sim::SchemeIsoefficiency> schemes);

}  // namespace trainsim::reports
