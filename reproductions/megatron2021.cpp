// Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU Clusters Using
// Megatron-LM" (arXiv 2104.04473), as published-results.md §2 gives it: setups only. Every row
// is simulated on the nominal selene-a100-80gb profile with no knob turned for it, and printed
// as a prediction; the paper's outcomes are deliberately not in our docs, so no row is compared.
//
// TFLOP/s per GPU is counted as Megatron-LM counts it: eq. 3 of the paper, the FLOPs executed
// with full recomputation, 96 B s l h^2 (1 + s/(6h) + V/(16 l h)), over the iteration time. The
// GEMM FLOPs our Program executes are printed beside it as a check.

#include "reproductions/megatron2021.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <string>
#include <utility>

#include "models/model_spec.hpp"
#include "reports/scenario_run.hpp"

namespace trainsim::reproductions {
namespace {

constexpr double kTokens = 300e9;  // the paper's "days for 300B tokens"
constexpr double kSecondsPerDay = 86400.0;

// The figures a row keeps: the Program and replay of the large pipelines take gigabytes, so
// each run is reduced to these before the next starts.
struct RowFigures {
  std::string name;
  std::int64_t gpus = 0;
  std::string layout;
  std::int64_t micro_batches = 0;  ///< per pipeline (per replica)
  double iteration_s = 0.0;
  double megatron_tflops = 0.0;  ///< eq. 3 FLOPs / time / GPUs
  double executed_tflops = 0.0;  ///< our Program's GEMM FLOPs / time / GPUs
  double days = 0.0;             ///< for 300B tokens
  double peak_gib = 0.0;
  bool fits = false;
  std::string error;  ///< why the row could not be simulated; empty when it was
};

std::string layout_of(const Scenario& s) {
  const ParallelPlan& p = s.parallel;
  std::string out =
      fmt::format("TP {} × PP {} × DP {}", p.tensor.size, p.pipeline.size, p.data.size);
  if (p.pipeline.size > 1) {
    out += p.pipeline.schedule == PipelineSchedule::interleaved
               ? fmt::format(", interleaved v {}", p.pipeline.chunks)
               : fmt::format(", {}", to_string(p.pipeline.schedule));
  }
  if (p.data.zero > 0) out += fmt::format(", ZeRO-{}", p.data.zero);
  return out;
}

RowFigures run_row(const std::filesystem::path& root, const char* file) {
  RowFigures row;
  row.name = std::filesystem::path(file).stem().string();
  try {
    const reports::ScenarioRun run =
        reports::run_scenario_file(root / "scenarios/megatron2021" / file);
    const Scenario& s = run.scenario;
    row.gpus = s.gpus;
    row.layout = layout_of(s);
    row.micro_batches = s.training.global_batch / (s.training.micro_batch * s.parallel.data.size);
    row.iteration_s = run.summary.iteration_time.seconds();
    const double gpus = static_cast<double>(s.gpus);
    row.megatron_tflops =
        paper_formulas::narayanan_full_recompute_flops(s.model, s.training.global_batch) /
        row.iteration_s / gpus * 1e-12;
    row.executed_tflops = run.summary.hardware_rate_per_gpu.tflops();
    row.days = kTokens / run.summary.tokens_per_s / kSecondsPerDay;
    row.peak_gib = run.summary.memory.peak.as_double() / (1024.0 * 1024.0 * 1024.0);
    row.fits = run.summary.memory.fits;
  } catch (const std::exception& e) {
    row.error = e.what();
  }
  return row;
}

documents::ReportTable rows_table(std::string id) {
  return {std::move(id),
          {"row", "GPUs", "layout", "m", "iteration", "TFLOP/s per GPU", "PFLOP/s",
           "days, 300B tokens", "peak memory"},
          {}};
}

void add_line(documents::ReportTable& table, const RowFigures& r) {
  if (!r.error.empty()) {
    table.add_row({r.name, "", "cannot be simulated: " + r.error, "", "", "", "", "", ""});
    return;
  }
  table.add_row(
      {r.name, fmt::format("{}", r.gpus), r.layout, fmt::format("{}", r.micro_batches),
       fmt::format("{:.2f} s", r.iteration_s), fmt::format("{:.1f}", r.megatron_tflops),
       fmt::format("{:.2f}", r.megatron_tflops * static_cast<double>(r.gpus) * 1e-3),
       fmt::format("{:.1f}", r.days),
       fmt::format("{:.1f} GiB{}", r.peak_gib, r.fits ? "" : " (DOES NOT FIT in 80 GiB)")});
}

constexpr std::array<const char*, 10> kWeakScaling{
    "gpt-1.7b.yaml",  "gpt-3.6b.yaml",   "gpt-7.5b.yaml",   "gpt-18.4b.yaml",  "gpt-39.1b.yaml",
    "gpt-76.1b.yaml", "gpt-145.6b.yaml", "gpt-310.1b.yaml", "gpt-529.6b.yaml", "gpt-1008b.yaml"};

// Table 2: ZeRO-3 and PTD-P at (nearly) the same GPU counts, in the paper's pairs.
struct Pair {
  const char* zero3;
  const char* ptdp;
};
constexpr std::array<Pair, 6> kZero3Pairs{
    {{"gpt-175b-zero3-384.yaml", "gpt-175b-ptdp-384.yaml"},
     {"gpt-175b-zero3-768.yaml", "gpt-175b-ptdp-768.yaml"},
     {"gpt-175b-zero3-1536.yaml", "gpt-175b-ptdp-1536.yaml"},
     {"gpt-530b-zero3-640.yaml", "gpt-530b-ptdp-560.yaml"},
     {"gpt-530b-zero3-1120.yaml", "gpt-530b-ptdp-1120.yaml"},
     {"gpt-530b-zero3-2240.yaml", "gpt-530b-ptdp-2240.yaml"}}};

std::string ratio(const RowFigures& num, const RowFigures& den) {
  if (!num.error.empty() || !den.error.empty()) return "–";
  return fmt::format("{:.2f}×", num.megatron_tflops / den.megatron_tflops);
}

}  // namespace

ReproductionReport run_megatron2021(const std::filesystem::path& root) {
  std::string notes =
      "Predictions only: published-results.md §2 gives the setups of Narayanan et al. 2021 "
      "(arXiv 2104.04473), not their outcomes. Nominal selene-a100-80gb, full recomputation, "
      "sequence 2048, vocabulary 51200, no knob per row. m: micro batches per pipeline. "
      "TFLOP/s: per GPU as Megatron-LM counts it (eq. 3, full recomputation); PFLOP/s: "
      "aggregate (TFLOP/s × GPUs); days: for 300B tokens. Tables weak-scaling (their Table 1) and "
      "zero3-vs-ptdp (their Table 2; ZeRO-3 without model parallelism).\n";
  // Eq. 3 against the GEMM FLOPs our Program executes: the largest relative gap over all rows.
  double largest_gap = 0.0;
  auto run = [&](const char* file) {
    RowFigures row = run_row(root, file);
    if (row.error.empty()) {
      largest_gap =
          std::max(largest_gap, std::abs(row.megatron_tflops / row.executed_tflops - 1.0));
    }
    return row;
  };
  // Weak scaling (their Table 1), and PTD-P versus ZeRO-3 (their Table 2; ZeRO-3 without
  // model parallelism).
  documents::ReportTable weak = rows_table("weak-scaling");
  for (const char* file : kWeakScaling)
    add_line(weak, run(file));
  documents::ReportTable versus = rows_table("zero3-vs-ptdp");
  std::string ratios = "PTD-P over ZeRO-3, TFLOP/s per GPU:";
  for (const Pair& pair : kZero3Pairs) {
    const RowFigures zero3 = run(pair.zero3);
    const RowFigures ptdp = run(pair.ptdp);
    add_line(versus, zero3);
    add_line(versus, ptdp);
    ratios += fmt::format(" {} {} GPUs {};", ptdp.name.substr(4, 4), ptdp.gpus, ratio(ptdp, zero3));
  }
  ratios.back() = '\n';
  notes += ratios;
  notes += fmt::format(
      "Eq. 3 and the GEMM FLOPs our Program executes differ by at most {:.2f} % over all rows.\n",
      100.0 * largest_gap);
  ReproductionReport report;
  report.notes = notes;
  report.tables = {std::move(weak), std::move(versus)};
  return report;
}

}  // namespace trainsim::reproductions
