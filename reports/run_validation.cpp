#include "reports/run_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "sim/compute_model.hpp"

namespace trainsim::reports {

namespace {

// Rows keyed by name, kept in the order keys first appear.
class Rows {
 public:
  ValidationRow& at(const std::string& key) {
    const auto [it, inserted] = index_.try_emplace(key, rows_.size());
    if (inserted) rows_.push_back({key});
    return rows_[it->second];
  }
  std::vector<ValidationRow> take() { return std::move(rows_); }

 private:
  std::map<std::string, std::size_t> index_;
  std::vector<ValidationRow> rows_;
};

std::string layer_key(std::int32_t layer) {
  return layer == program::Tag::kNoLayer ? "outside layers" : fmt::format("layer {}", layer);
}

std::string class_key(const program::Op& op) {
  return std::string(to_string(
      std::holds_alternative<program::Gemm>(op.payload) ? OpClass::gemm : OpClass::kernel));
}

bool is_compute(OpClass c) {
  return c == OpClass::gemm || c == OpClass::kernel;
}

std::string error_text(const ValidationRow& row) {
  const auto e = row.signed_error();
  return e ? fmt::format("{:+.1f} %", *e * 100.0) : std::string("n/a");
}

void table(std::string& out, std::string_view title, const std::vector<ValidationRow>& rows) {
  out += fmt::format("\n  {:<34}{:>14}{:>14}{:>12}{:>10}\n", title, "predicted ms", "measured ms",
                     "error", "ops p/m");
  for (const ValidationRow& r : rows) {
    out += fmt::format("  {:<34}{:>14.4f}{:>14.4f}{:>12}{:>10}\n", r.key, r.predicted_s * 1e3,
                       r.measured_s * 1e3, error_text(r),
                       fmt::format("{}/{}", r.predicted_ops, r.measured_ops));
  }
}

}  // namespace

std::optional<double> ValidationRow::signed_error() const {
  if (measured_s <= 0.0) return std::nullopt;
  return (predicted_s - measured_s) / measured_s;
}

RunValidation validate_run(const MeasuredRun& measured, const program::Program& program,
                           const hw::HardwareProfile& hardware, Time simulated_iteration) {
  const auto rank_program =
      std::find_if(program.ranks.begin(), program.ranks.end(),
                   [&](const program::RankProgram& r) { return r.rank == measured.rank; });
  if (rank_program == program.ranks.end()) {
    throw std::invalid_argument(fmt::format(
        "the measured rank {} has no recorded Program in this scenario", measured.rank));
  }
  RunValidation v;
  v.scenario = measured.scenario;
  v.hardware = measured.hardware;
  v.device = measured.device;
  v.rank = measured.rank;
  v.simulated_iteration_s = simulated_iteration.seconds();
  v.skipped = measured.skipped;
  v.iteration.key = "iteration";

  Rows classes;
  Rows names;
  std::map<std::int32_t, ValidationRow> layers;  // kNoLayer (-1) sorts first: moved last below
  classes.at("gemm");
  classes.at("kernel");
  for (const program::Op& op : rank_program->ops) {
    if (!op.is_compute()) continue;
    const double t = sim::compute_time(op, hardware).seconds();
    const std::string name(program.names.name(op.name));
    for (ValidationRow* row :
         {&classes.at(class_key(op)), &names.at(name), &layers[op.tag.layer], &v.iteration}) {
      row->predicted_s += t;
      ++row->predicted_ops;
    }
  }
  for (const MeasuredOp& op : measured.ops) {
    if (!is_compute(op.op_class)) continue;
    for (ValidationRow* row : {&classes.at(std::string(to_string(op.op_class))), &names.at(op.name),
                               &layers[op.tag.layer]}) {
      row->measured_s += op.seconds;
      ++row->measured_ops;
    }
    ++v.iteration.measured_ops;
  }
  v.iteration.measured_s = measured.iteration_seconds;
  v.by_class = classes.take();
  v.by_name = names.take();
  for (auto& [layer, row] : layers) {
    row.key = layer_key(layer);
    if (layer != program::Tag::kNoLayer) v.by_layer.push_back(row);
  }
  if (const auto it = layers.find(program::Tag::kNoLayer); it != layers.end())
    v.by_layer.push_back(it->second);
  return v;
}

std::string format_run_validation(const RunValidation& v) {
  std::string out = fmt::format(
      "validate-run: scenario {}, rank {}, measured on {}, predicted with profile {}\n"
      "  predicted: each GEMM and kernel on an otherwise idle GPU (the cost model); "
      "error = (predicted - measured) / measured\n",
      v.scenario, v.rank, v.device, v.hardware);
  table(out, "op class", v.by_class);
  table(out, "op name", v.by_name);
  table(out, "layer", v.by_layer);
  table(out, "iteration (compute only)", {v.iteration});
  out += fmt::format(
      "\n  simulated iteration with communication: {:.4f} ms (reference; not "
      "measured here)\n",
      v.simulated_iteration_s * 1e3);
  std::int64_t skipped = 0;
  for (const SkippedCollective& s : v.skipped)
    skipped += s.count;
  if (skipped > 0) {
    out += fmt::format(
        "  {} collectives and transfers per iteration were skipped in the "
        "measurement (their group's other GPUs were absent):\n",
        skipped);
    for (const SkippedCollective& s : v.skipped)
      out += fmt::format("    {:<32} group {:<14} x{}\n", s.name, s.group, s.count);
  }
  return out;
}

}  // namespace trainsim::reports
