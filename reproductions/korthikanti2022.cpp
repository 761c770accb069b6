// Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models"
// (arXiv 2205.05198), as summarised in published-results.md §1: Table 2 (activation memory per
// layer), Table 4 (one layer of the 22B model) and Table 5 (every model end to end, and the
// 530B run with 8-way data parallelism), on the nominal selene-a100-80gb profile with no
// per-row knob. The pipelined Table 5 rows (175B, 530B, 1T) replay millions of ops each, so
// they are a reproduction of their own (korthikanti2022-pipelines, a separate ctest entry). The
// Megatron weak-scaling rows (Narayanan et al. 2021) are predicted in megatron2021.cpp.

#include <fmt/format.h>

#include <array>
#include <string>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/build_program.hpp"
#include "reports/program_measures.hpp"
#include "reports/scenario_run.hpp"
#include "reproductions/comparison_sets.hpp"
#include "reproductions/korthikanti2022.hpp"

namespace trainsim::reproductions {
namespace {

constexpr const char* kTable2 = "Korthikanti et al. 2022 (arXiv 2205.05198), Table 2";
constexpr const char* kTable4 = "Korthikanti et al. 2022 (arXiv 2205.05198), Table 4";
constexpr const char* kTable5 = "Korthikanti et al. 2022 (arXiv 2205.05198), Table 5";

// Table 2 is a set of closed forms: the executor's saved bytes must match them to 1 %.
constexpr double kMemoryTolerance = 0.01;
// Timings: we aim for 3 % and fail beyond 10 % (issue 3).
constexpr double kTimeAim = 0.03;
constexpr double kTimeTolerance = 0.10;

// A timing figure (or a ratio or utilisation derived from timings) in `set`.
Comparison timing(std::string figure, const char* source, const char* unit, double published,
                  double predicted, const char* set) {
  Comparison c{std::move(figure), source, unit, published, predicted, kTimeAim, kTimeTolerance};
  c.set = set;
  return c;
}

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
    return reports::live_before_backward(p.ranks.front(), program::MemoryCategory::activations);
  };
  return (saved(2) - saved(1)).as_double();
}

void add_table2(std::vector<Comparison>& out) {
  for (const PaperModel& m : kModels) {
    for (const MemoryRow& row : kMemoryRows) {
      out.push_back({fmt::format("Table 2, {} (b {}), {}: activations per layer", m.name,
                                 m.micro_batch, row.name),
                     kTable2, "MB", table2_bytes(m, row) * 1e-6, executor_bytes(m, row) * 1e-6,
                     kMemoryTolerance, kMemoryTolerance});
      out.back().set = set_names::kKorthikantiTable2;
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

reports::ScenarioRun run_paper_scenario(const std::filesystem::path& root, const char* file) {
  return reports::run_scenario_file(root / "scenarios/korthikanti2022" / file);
}

void add_table4(const std::filesystem::path& root, std::vector<Comparison>& out) {
  for (const LayerRow& row : kLayerRows) {
    const reports::ScenarioRun run = run_paper_scenario(root, row.scenario);
    // A middle layer: the first and last also carry embedding and loss work.
    const auto layer = static_cast<std::int32_t>(run.scenario.model.layers / 2);
    const reports::LayerTimes t =
        reports::layer_times(run.program.ranks.front(), run.result.timelines.front(), layer);
    out.push_back(timing(fmt::format("Table 4, 22B layer, {}: forward", row.name), kTable4, "ms",
                         row.forward_ms, t.forward.ms(), set_names::kKorthikantiTable4));
    out.push_back(timing(fmt::format("Table 4, 22B layer, {}: backward", row.name), kTable4, "ms",
                         row.backward_ms, t.backward.ms(), set_names::kKorthikantiTable4));
  }
}

// Table 5, one model: both columns, the speedup, MFU and HFU (the last three for SP +
// selective, as the paper's).
struct EndToEndRow {
  const char* model;
  const char* full_scenario;
  const char* selective_scenario;
  double full_s, selective_s, gain_percent, mfu_percent, hfu_percent;
};
constexpr EndToEndRow k22B{
    "22B", "gpt-22b-full.yaml", "gpt-22b-sp-selective.yaml", 1.42, 1.10, 29.0, 41.5, 43.7};
// The pipelined rows (175B and 530B interleaved with 3 chunks, 1T 1F1B; no data parallelism).
constexpr std::array<EndToEndRow, 3> kPipelineRows{{
    {"175B", "gpt-175b-full.yaml", "gpt-175b-sp-selective.yaml", 18.13, 13.75, 31.8, 51.4, 52.8},
    {"530B", "gpt-530b-full.yaml", "gpt-530b-sp-selective.yaml", 49.05, 37.83, 29.7, 56.0, 57.0},
    {"1T", "gpt-1t-full.yaml", "gpt-1t-sp-selective.yaml", 94.42, 71.49, 32.1, 56.3, 57.0},
}};

struct EndToEnd {
  double seconds = 0.0;
  double mfu = 0.0;
  double paper_hfu = 0.0;  ///< with the paper's selective-recompute FLOP count
};

// One scenario end to end. Only the figures are kept: the Program and the replay's timings of
// the large pipelines take a gigabyte or more.
EndToEnd run_end_to_end(const std::filesystem::path& root, const char* file) {
  const reports::ScenarioRun run = run_paper_scenario(root, file);
  const double seconds = run.summary.iteration_time.seconds();
  // The paper's HFU counts selective recomputation with its printed s/(3h) formula; compare
  // like with like (our executed-GEMM HFU is in the summary).
  const Scenario& s = run.scenario;
  const double paper_hardware_flops =
      paper_formulas::korthikanti_selective_hardware_flops(s.model, s.training.global_batch);
  return {seconds, run.summary.mfu,
          paper_hardware_flops / seconds / static_cast<double>(s.gpus) /
              run.summary.peak_per_gpu.flops_per_second()};
}

void add_end_to_end(const std::filesystem::path& root, const EndToEndRow& row,
                    std::vector<Comparison>& out) {
  const double full_s = run_end_to_end(root, row.full_scenario).seconds;
  const EndToEnd selective = run_end_to_end(root, row.selective_scenario);
  out.push_back(timing(fmt::format("Table 5, {}, full recompute: iteration time", row.model),
                       kTable5, "s", row.full_s, full_s, set_names::kKorthikantiTable5Times));
  out.push_back(timing(fmt::format("Table 5, {}, SP + selective: iteration time", row.model),
                       kTable5, "s", row.selective_s, selective.seconds,
                       set_names::kKorthikantiTable5Times));
  // The published gain as the speedup ratio (1.29 for 29.0 %), the form every speedup of the
  // reproductions takes: as a percentage the error of a ratio near 1 is magnified ~4.4-fold.
  out.push_back(timing(fmt::format("Table 5, {}: speedup of SP + selective (gain {:.1f} %)",
                                   row.model, row.gain_percent),
                       kTable5, "x", 1.0 + row.gain_percent / 100.0, full_s / selective.seconds,
                       set_names::kKorthikantiSpeedups));
  out.push_back(timing(fmt::format("Table 5, {}, SP + selective: MFU", row.model), kTable5, "%",
                       row.mfu_percent, 100.0 * selective.mfu, set_names::kKorthikantiUtilization));
  out.push_back(timing(
      fmt::format("Table 5, {}, SP + selective: HFU (paper's FLOP count)", row.model), kTable5, "%",
      row.hfu_percent, 100.0 * selective.paper_hfu, set_names::kKorthikantiUtilization));
}

void add_table5(const std::filesystem::path& root, std::vector<Comparison>& out) {
  add_end_to_end(root, k22B, out);
}

void add_table5_pipelines(const std::filesystem::path& root, std::vector<Comparison>& out) {
  for (const EndToEndRow& row : kPipelineRows)
    add_end_to_end(root, row, out);
  // The 530B run scaled to 8-way data parallelism (2240 GPUs, batch 2240, the gradient
  // all-reduce after the backward pass).
  const EndToEnd dp8 = run_end_to_end(root, "gpt-530b-sp-selective-dp8.yaml");
  out.push_back(timing("Table 5 note, 530B × DP 8 (2240 GPUs), SP + selective: iteration time",
                       kTable5, "s", 39.15, dp8.seconds, set_names::kKorthikantiDp8));
  out.push_back(timing("Table 5 note, 530B × DP 8 (2240 GPUs), SP + selective: MFU", kTable5, "%",
                       54.2, 100.0 * dp8.mfu, set_names::kKorthikantiUtilization));
}

}  // namespace

ReproductionReport run_korthikanti2022(const std::filesystem::path& root) {
  ReproductionReport report;
  add_table2(report.comparisons);
  add_table4(root, report.comparisons);
  add_table5(root, report.comparisons);
  return report;
}

ReproductionReport run_korthikanti2022_pipelines(const std::filesystem::path& root) {
  ReproductionReport report;
  add_table5_pipelines(root, report.comparisons);
  return report;
}

}  // namespace trainsim::reproductions
