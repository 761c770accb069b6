// vTrain's single-node A100 iteration times (Bang et al., MICRO 2024, arXiv 2312.12391; MIT
// licence, data/vtrain2024/): 1440 Megatron-DeepSpeed runs of GPTs with hidden 1024 or 2048 on
// 2, 4 or 8 A100s of one node. Each row is the scenario `trainsim fit-runs` fits to
// (inputs::measured_run_scenario), replayed on selene-a100-80gb, the profile that also serves
// korthikanti2022; its host, streaming-kernel and per-kernel figures were fitted to the
// fitting rows (calibrate/README.md). The rows fall into the two sets a fit uses: the fitting
// rows and every 5th row held out (inputs::run_held_out, fraction 0.2), never fitted.

#include "reproductions/vtrain2024.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/run_measurements.hpp"
#include "models/build_program.hpp"
#include "models/errors.hpp"
#include "models/parallel_for.hpp"
#include "reproductions/comparison_set.hpp"
#include "reproductions/comparison_sets.hpp"
#include "sim/replay.hpp"

namespace trainsim::reproductions {
namespace {

constexpr const char* kSource =
    "vTrain (Bang et al. 2024, arXiv 2312.12391), data/ground_truth_single.csv";
constexpr const char* kProfile = "hwprofiles/selene-a100-80gb.yaml";

// One row's predicted iteration time (seconds), NaN with the reason when it cannot be built.
struct Prediction {
  double seconds = std::numeric_limits<double>::quiet_NaN();
  std::string problem;
};

std::vector<Prediction> predict(const std::vector<inputs::RunMeasurement>& rows,
                                const hw::HardwareProfile& hardware) {
  sim::ReplayOptions options;
  options.record_op_timings = false;
  std::vector<Prediction> out(rows.size());
  // Rows are independent: each into its own slot, so the result does not depend on threads;
  // each Program is dropped once replayed (all of them together take gigabytes).
  for_each_in_parallel(rows.size(), [&](std::size_t i) {
    try {
      const program::Program program =
          build_program(inputs::measured_run_scenario(rows[i]), ProgramScope::representative);
      out[i].seconds = sim::replay(program, hardware, options).iteration_time.seconds();
    } catch (const Infeasible& e) {
      out[i].problem = e.what();
    }
  });
  return out;
}

std::string describe(const inputs::RunMeasurement& r) {
  return fmt::format(
      "line {}: {} GPUs (t {}, d {}, p {}), h {}, {} layers, micro batch {}, "
      "global batch {}",
      r.line, r.gpus, r.tensor, r.data, r.pipeline, r.hidden, r.layers, r.micro_batch,
      r.global_batch);
}

// The rows of one configuration class, by split.
struct ClassRows {
  std::vector<const Comparison*> fitting;
  std::vector<const Comparison*> held_out;
};

// A digest: one line per class (`key` of a row, ordered), the fitting and held-out rows'
// statistics side by side (median and p90 of |error|, bias = mean signed error).
template <typename Key>
documents::ReportTable digest(std::string id, std::vector<std::string> key_columns,
                              const std::vector<inputs::RunMeasurement>& rows,
                              const std::vector<Comparison>& compared, Key key) {
  std::map<std::vector<std::int64_t>, ClassRows> classes;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ClassRows& c = classes[key(rows[i])];
    (compared[i].set == set_names::kVtrainHeldOut ? c.held_out : c.fitting).push_back(&compared[i]);
  }
  documents::ReportTable table{std::move(id), std::move(key_columns), {}};
  for (const char* column : {"fitting rows", "fitting median", "fitting p90", "fitting bias",
                             "held-out rows", "held-out median", "held-out p90", "held-out bias"}) {
    table.columns.emplace_back(column);
  }
  for (const auto& [values, c] : classes) {
    std::vector<std::string> cells;
    for (const std::int64_t v : values)
      cells.push_back(fmt::format("{}", v));
    for (const auto* split : {&c.fitting, &c.held_out}) {
      const SetStats s = set_stats(*split);
      cells.push_back(fmt::format("{}", s.rows));
      const bool any = s.rows > 0;
      cells.push_back(any ? percent_text(s.median_abs) : "-");
      cells.push_back(any ? percent_text(s.p90_abs) : "-");
      cells.push_back(any ? signed_percent_text(s.bias) : "-");
    }
    table.add_row(std::move(cells));
  }
  return table;
}

documents::ReportTable every_row(const std::vector<inputs::RunMeasurement>& rows,
                                 const std::vector<Comparison>& compared) {
  documents::ReportTable table{
      "rows",
      {"line", "GPUs", "global batch", "micro batch", "hidden", "heads", "layers", "sequence", "TP",
       "DP", "PP", "measured ms", "predicted ms", "signed error", "split"},
      {}};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const inputs::RunMeasurement& r = rows[i];
    const Comparison& c = compared[i];
    table.add_row({fmt::format("{}", r.line), fmt::format("{}", r.gpus),
                   fmt::format("{}", r.global_batch), fmt::format("{}", r.micro_batch),
                   fmt::format("{}", r.hidden), fmt::format("{}", r.heads),
                   fmt::format("{}", r.layers), fmt::format("{}", r.seq_len),
                   fmt::format("{}", r.tensor), fmt::format("{}", r.data),
                   fmt::format("{}", r.pipeline), fmt::format("{:.3f}", c.published),
                   std::isfinite(c.predicted) ? fmt::format("{:.3f}", c.predicted) : "-",
                   signed_percent_text(c.signed_error()),
                   c.set == set_names::kVtrainHeldOut ? "held out" : "fitting"});
  }
  return table;
}

}  // namespace

ReproductionReport run_vtrain2024(const std::filesystem::path& root) {
  const inputs::RunMeasurements runs = inputs::read_run_measurements(root / kVtrainDataFile);
  const hw::HardwareProfile hardware = inputs::load_hardware_profile(root / kProfile);
  const std::vector<Prediction> predicted = predict(runs.rows, hardware);

  ReproductionReport report;
  std::size_t held_out = 0;
  std::string problems;
  for (std::size_t i = 0; i < runs.rows.size(); ++i) {
    const inputs::RunMeasurement& r = runs.rows[i];
    const bool held = inputs::run_held_out(i, kVtrainHoldout);
    held_out += held ? 1 : 0;
    Comparison c;
    c.figure = describe(r);
    c.source = kSource;
    c.unit = "ms";
    c.published = r.time.ms();
    c.predicted = 1e3 * predicted[i].seconds;
    c.set = held ? set_names::kVtrainHeldOut : set_names::kVtrainFitting;
    report.set_rows.push_back(std::move(c));
    if (!predicted[i].problem.empty()) {
      problems += fmt::format("line {} cannot be simulated: {}\n", r.line, predicted[i].problem);
    }
  }
  report.notes = fmt::format(
      "{} measured iteration times ({}) replayed on {} with no per-row knob: GPT, ffn 4h, "
      "vocabulary 50257 padded to 128·t, bf16 with Adam, 1D TP without SP, 1F1B, full "
      "recomputation, the DP all-reduce not overlapped (inputs::measured_run_scenario, as "
      "`trainsim fit-runs` builds them). Split: row i (0-based, file order) is held out when "
      "floor((i+1)·{}) > floor(i·{}), every 5th row: {} held out, {} fitting rows (those "
      "`trainsim fit-runs --holdout {}` fits to, and to which the profile's host dispatch, "
      "streaming-kernel HBM fraction and per-kernel overhead were fitted; the held-out rows "
      "never were).\n{}",
      runs.rows.size(), kVtrainDataFile, hardware.name, kVtrainHoldout, kVtrainHoldout, held_out,
      runs.rows.size() - held_out, kVtrainHoldout, problems);
  report.tables.push_back(digest("by-hidden-tp", {"hidden", "TP"}, runs.rows, report.set_rows,
                                 [](const inputs::RunMeasurement& r) {
                                   return std::vector{r.hidden, r.tensor};
                                 }));
  report.tables.push_back(
      digest("by-micro-batch", {"micro batch"}, runs.rows, report.set_rows,
             [](const inputs::RunMeasurement& r) { return std::vector{r.micro_batch}; }));
  report.csv_tables.push_back(every_row(runs.rows, report.set_rows));
  return report;
}

}  // namespace trainsim::reproductions
