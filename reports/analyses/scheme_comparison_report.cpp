#include "reports/analyses/scheme_comparison_report.hpp"

#include <fmt/format.h>

#include <optional>

#include "reports/summary_table.hpp"
#include "units/format.hpp"

namespace trainsim::reports {
namespace {

std::string cell(const std::optional<Time>& t) {
  return t ? to_string(*t) : "-";
}

std::string times(const std::optional<double>& r) {
  return r ? fmt::format("{:.2f}x", *r) : "-";
}

std::string max_batch_cell(const SchemeResult& row) {
  if (!row.max_batch) return "-";
  if (row.max_batch->micro_batch == 0) return "none";
  return fmt::format("{} ({})", row.max_batch->global_batch, row.max_batch->micro_batch);
}

template <typename T>
nlohmann::ordered_json or_null(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

std::string format_scheme_table(const Scenario& scenario, const hw::HardwareProfile& hardware,
                                std::span<const SchemeResult> rows) {
  std::string out;
  const auto line = [&out](std::string_view text) {
    out += text;
    out += '\n';
  };
  const ParallelPlan& p = scenario.parallel;
  line(
      fmt::format("{} on {} — {} GPUs: tensor block {} × PP {} × DP {}, global batch {} "
                  "(micro {})",
                  scenario.name, hardware.name, scenario.gpus, p.tensor.size, p.pipeline.size,
                  p.data.size, scenario.training.global_batch, scenario.training.micro_batch));
  line(
      fmt::format("step: one training iteration; inference: forward passes of the same batch; "
                  "max batch: largest global (micro) batch that fits in training; ratios to {}",
                  rows.empty() ? "-" : rows.front().name));
  line("");
  constexpr std::string_view kRow =
      "  {:<7}{:<12}{:>11}  {:>11}  {:>16}  {:>11}  {:>7}  {:>7}  {:>7}";
  line(fmt::format(kRow, "scheme", "layout", "step", "inference", "max batch", "tokens/s", "step ×",
                   "infer ×", "batch ×"));
  for (const SchemeResult& row : rows) {
    if (row.problem) {
      line(fmt::format("  {:<7}{:<12}cannot run: {}", row.name, row.layout, *row.problem));
      continue;
    }
    line(fmt::format(kRow, row.name, row.layout, cell(row.step_time), cell(row.inference_time),
                     max_batch_cell(row), fmt::format("{:.0f}", row.tokens_per_s),
                     times(row.step_speedup), times(row.inference_speedup),
                     times(row.max_batch_ratio)));
  }
  bool header = false;
  for (const SchemeResult& row : rows) {
    for (const std::string& note : row.notes) {
      if (!header) line("");
      header = true;
      line(fmt::format("  note: {}: {}", row.name, note));
    }
    if (!row.problem && !row.fits) {
      if (!header) line("");
      header = true;
      line(fmt::format(
          "  note: {}: the scenario's batch does not fit in training (peak {} of "
          "{})",
          row.name, to_gib_string(row.peak_memory), to_gib_string(hardware.gpu.memory)));
    }
  }
  return out;
}

nlohmann::ordered_json schemes_to_json(const Scenario& scenario,
                                       const hw::HardwareProfile& hardware,
                                       std::span<const SchemeResult> rows) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["scenario"] = scenario.name;
  j["hardware"] = hardware.name;
  j["gpus"] = scenario.gpus;
  j["global_batch"] = scenario.training.global_batch;
  j["micro_batch"] = scenario.training.micro_batch;
  j["tensor_size"] = scenario.parallel.tensor.size;
  j["data_parallel"] = scenario.parallel.data.size;
  j["baseline"] = rows.empty() ? ordered_json(nullptr) : ordered_json(rows.front().name);
  ordered_json schemes = ordered_json::array();
  for (const SchemeResult& row : rows) {
    ordered_json s;
    const auto seconds = [](const std::optional<Time>& t) {
      return t ? ordered_json(t->seconds()) : ordered_json(nullptr);
    };
    const bool feasible = !row.problem;
    s["scheme"] = row.name;
    s["layout"] = row.layout;
    s["plan"] = plan_description(row.plan);
    s["feasible"] = feasible;
    s["problem"] = or_null(row.problem);
    s["notes"] = row.notes;
    s["step_time_s"] = seconds(row.step_time);
    s["inference_time_s"] = seconds(row.inference_time);
    s["tokens_per_s"] = feasible ? ordered_json(row.tokens_per_s) : ordered_json(nullptr);
    s["inference_tokens_per_s"] =
        feasible ? ordered_json(row.inference_tokens_per_s) : ordered_json(nullptr);
    s["peak_bytes"] = feasible ? ordered_json(row.peak_memory.count()) : ordered_json(nullptr);
    s["fits"] = feasible ? ordered_json(row.fits) : ordered_json(nullptr);
    s["inference_peak_bytes"] =
        feasible ? ordered_json(row.inference_peak_memory.count()) : ordered_json(nullptr);
    s["max_micro_batch"] =
        row.max_batch ? ordered_json(row.max_batch->micro_batch) : ordered_json(nullptr);
    s["max_global_batch"] =
        row.max_batch ? ordered_json(row.max_batch->global_batch) : ordered_json(nullptr);
    s["step_speedup"] = or_null(row.step_speedup);
    s["inference_speedup"] = or_null(row.inference_speedup);
    s["max_batch_ratio"] = or_null(row.max_batch_ratio);
    schemes.push_back(std::move(s));
  }
  j["schemes"] = std::move(schemes);
  return j;
}

}  // namespace trainsim::reports
