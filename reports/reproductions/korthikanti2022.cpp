// Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models"
// (arXiv 2205.05198), as summarised in published-results.md §1: Table 2 (activation memory per
// layer), Table 4 (one layer of the 22B model) and Table 5 (22B end to end), on the nominal
// selene-a100-80gb profile with no per-row knob. The Megatron weak-scaling rows with PP = 1
// (Narayanan et al. 2021) are predicted beside them, with no published figure to compare.

#include <fmt/format.h>

#include <array>
#include <string>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/build_program.hpp"
#include "reports/program_measures.hpp"
#include "reports/reproductions/korthikanti2022.hpp"
#include "reports/scenario_run.hpp"

namespace trainsim::reports {
namespace {

constexpr const char* kTable2 = "Korthikanti et al. 2022 (arXiv 2205.05198), Table 2";
constexpr const char* kTable4 = "Korthikanti et al. 2022 (arXiv 2205.05198), Table 4";
constexpr const char* kTable5 = "Korthikanti et al. 2022 (arXiv 2205.05198), Table 5";

// Table 2 is a set of closed forms: the executor's saved bytes must match them to 1 %.
constexpr double kMemoryTolerance = 0.01;
// Timings: we aim for 3 % and fail beyond 10 % (issue 3).
constexpr double kTimeAim = 0.03;
constexpr double kTimeTolerance = 0.10;

struct PaperModel {
  const char* name;
  std::int64_t heads, hidden, layers, micro_batch;
};
// Table 3 (TP 8 for all; sequence 2048, vocabulary 51200).
constexpr std::array<PaperModel, 4> kModels{{{"22B", 64, 6144, 48, 4},
                                             {"175B", 96, 12288, 96, 1},
                                             {"530B", 128, 20480, 105, 1},
                                             {"1T", 160, 25600, 128, 1}}};
constexpr std::int64_t kTensorParallel = 8;

struct MemoryRow {
  const char* name;
  bool sequence_parallel;
  Recompute recompute;
};
constexpr std::array<MemoryRow, 5> kMemoryRows{{{"TP", false, Recompute::none},
                                                {"TP + SP", true, Recompute::none},
                                                {"TP + selective", false, Recompute::selective},
                                                {"TP + SP + selective", true, Recompute::selective},
                                                {"full recompute", false, Recompute::full}}};

// Table 2's formula for one layer on one TP rank, bytes.
double table2_bytes(const PaperModel& m, const MemoryRow& row) {
  const double s = 2048.0;
  const double b = static_cast<double>(m.micro_batch);
  const double h = static_cast<double>(m.hidden);
  const double a = static_cast<double>(m.heads);
  const double t = static_cast<double>(kTensorParallel);
  const double sbh = s * b * h;
  switch (row.recompute) {
    case Recompute::full:
      return 2.0 * sbh;
    case Recompute::selective:
      return row.sequence_parallel ? 34.0 * sbh / t : sbh * (10.0 + 24.0 / t);
    case Recompute::none:
      return row.sequence_parallel ? sbh / t * (34.0 + 5.0 * a * s / h)
                                   : sbh * (10.0 + 24.0 / t + 5.0 * a * s / (h * t));
  }
  return 0.0;
}

// The executor's saved activations per layer: what an extra layer adds to the bytes the
// forward pass keeps (embedding, loss and the final LayerNorm cancel out).
double executor_bytes(const PaperModel& m, const MemoryRow& row) {
  auto saved = [&](std::int64_t layers) {
    ModelSpec model;
    model.layers = layers;
    model.hidden = m.hidden;
    model.heads = m.heads;
    model.ffn = 4 * m.hidden;
    model.seq_len = 2048;
    model.vocab = 51200;
    ParallelPlan plan;
    plan.tensor.size = kTensorParallel;
    plan.tensor.sequence_parallel = row.sequence_parallel;
    plan.recompute = row.recompute;
    TrainingSpec training;
    training.global_batch = m.micro_batch;
    training.micro_batch = m.micro_batch;
    const program::Program p = build_program(model, plan, training, ProgramScope::representative);
    return live_before_backward(p.ranks.front(), program::MemoryCategory::activations);
  };
  return (saved(2) - saved(1)).as_double();
}

void add_table2(std::vector<Comparison>& out) {
  for (const PaperModel& m : kModels) {
    for (const MemoryRow& row : kMemoryRows) {
      out.push_back({fmt::format("Table 2, {} (b {}), {}: activations per layer", m.name,
                                 m.micro_batch, row.name),
                     kTable2, "MB", table2_bytes(m, row) * 1e-6, executor_bytes(m, row) * 1e-6,
                     kMemoryTolerance, kMemoryTolerance, ""});
    }
  }
}

struct LayerRow {
  const char* name;
  const char* scenario;
  double forward_ms, backward_ms;
};
constexpr std::array<LayerRow, 5> kLayerRows{{
    {"baseline, no recompute", "gpt-22b.yaml", 7.7, 11.9},
    {"sequence parallelism", "gpt-22b-sp.yaml", 7.2, 11.8},
    {"full recompute", "gpt-22b-full.yaml", 7.7, 19.5},
    {"selective recompute", "gpt-22b-selective.yaml", 7.7, 13.2},
    {"selective + sequence parallelism", "gpt-22b-sp-selective.yaml", 7.2, 13.1},
}};

ScenarioRun run_paper_scenario(const std::filesystem::path& root, const char* file) {
  return run_scenario_file(root / "scenarios/korthikanti2022" / file);
}

void add_table4(const std::filesystem::path& root, std::vector<Comparison>& out) {
  for (const LayerRow& row : kLayerRows) {
    const ScenarioRun run = run_paper_scenario(root, row.scenario);
    // A middle layer: the first and last also carry embedding and loss work.
    const auto layer = static_cast<std::int32_t>(run.scenario.model.layers / 2);
    const LayerTimes t =
        layer_times(run.program.ranks.front(), run.result.timelines.front(), layer);
    out.push_back({fmt::format("Table 4, 22B layer, {}: forward", row.name), kTable4, "ms",
                   row.forward_ms, t.forward.ms(), kTimeAim, kTimeTolerance, ""});
    out.push_back({fmt::format("Table 4, 22B layer, {}: backward", row.name), kTable4, "ms",
                   row.backward_ms, t.backward.ms(), kTimeAim, kTimeTolerance, ""});
  }
}

void add_table5(const std::filesystem::path& root, std::vector<Comparison>& out) {
  const ScenarioRun full = run_paper_scenario(root, "gpt-22b-full.yaml");
  const ScenarioRun selective = run_paper_scenario(root, "gpt-22b-sp-selective.yaml");
  const double full_s = full.summary.iteration_time.seconds();
  const double selective_s = selective.summary.iteration_time.seconds();
  out.push_back({"Table 5, 22B, full recompute: iteration time", kTable5, "s", 1.42, full_s,
                 kTimeAim, kTimeTolerance, ""});
  out.push_back({"Table 5, 22B, SP + selective: iteration time", kTable5, "s", 1.10, selective_s,
                 kTimeAim, kTimeTolerance, ""});
  // The published 29.0 % gain as the speedup ratio 1.29, the form every speedup of the
  // reproductions takes: as a percentage the error of a ratio near 1 is magnified 4.4-fold.
  out.push_back({"Table 5, 22B: speedup of SP + selective (gain 29.0 %)", kTable5, "x", 1.29,
                 full_s / selective_s, kTimeAim, kTimeTolerance, ""});
  out.push_back({"Table 5, 22B, SP + selective: MFU", kTable5, "%", 41.5,
                 100.0 * selective.summary.mfu, kTimeAim, kTimeTolerance, ""});
  // The paper's HFU counts selective recomputation with its printed s/(3h) formula; compare
  // like with like (our executed-GEMM HFU is in the notes).
  const Scenario& s = selective.scenario;
  const double paper_hardware_flops =
      paper_formulas::korthikanti_selective_hardware_flops(s.model, s.training.global_batch);
  const double paper_hfu = paper_hardware_flops / selective_s / static_cast<double>(s.gpus) /
                           selective.summary.peak_per_gpu.flops_per_second();
  out.push_back({"Table 5, 22B, SP + selective: HFU (paper's FLOP count)", kTable5, "%", 43.7,
                 100.0 * paper_hfu, kTimeAim, kTimeTolerance, ""});
}

std::string weak_scaling_notes(const std::filesystem::path& root) {
  std::string notes =
      "Megatron-LM weak scaling with PP = 1 (Narayanan et al. 2021, arXiv 2104.04473, Table 1 "
      "setups; published-results.md §2 gives setups only), full recomputation, nominal "
      "selene-a100-80gb:\n";
  notes += fmt::format("  {:<8}{:>6}{:>6}{:>6}{:>14}{:>18}{:>10}\n", "model", "GPUs", "TP", "DP",
                       "iteration", "TFLOP/s per GPU", "MFU");
  for (const char* file : {"gpt-1.7b.yaml", "gpt-3.6b.yaml", "gpt-7.5b.yaml", "gpt-18.4b.yaml"}) {
    const ScenarioRun run = run_scenario_file(root / "scenarios/megatron2021" / file);
    notes += fmt::format("  {:<8}{:>6}{:>6}{:>6}{:>12.3f} s{:>18.1f}{:>9.1f}%\n",
                         run.scenario.name.substr(4), run.scenario.gpus,
                         run.scenario.parallel.tensor.size, run.scenario.parallel.data.size,
                         run.summary.iteration_time.seconds(),
                         run.summary.hardware_rate_per_gpu.tflops(), 100.0 * run.summary.mfu);
  }
  notes +=
      "  (TFLOP/s per GPU counts the FLOPs executed, recomputation included, as Megatron-LM "
      "reports it.)\n";
  return notes;
}

}  // namespace

ReproductionReport run_korthikanti2022(const std::filesystem::path& root) {
  ReproductionReport report;
  add_table2(report.comparisons);
  add_table4(root, report.comparisons);
  add_table5(root, report.comparisons);
  report.notes = weak_scaling_notes(root);
  return report;
}

}  // namespace trainsim::reports
