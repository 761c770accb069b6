#include "reports/kineto_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/compute_model.hpp"

namespace trainsim::reports {

namespace {

using inputs::KernelFamily;

std::string error_text(const ValidationRow& row) {
  // A family the Program has no op of (copies, NCCL on one GPU, kernels no rule names).
  if (row.predicted_ops == 0 && row.measured_ops > 0) return "no ops";
  const auto e = row.signed_error();
  return e ? fmt::format("{:+.1f} %", *e * 100.0) : std::string("n/a");
}

std::string row_text(const ValidationRow& r) {
  return fmt::format("  {:<26}{:>14.3f}{:>14.3f}{:>12}{:>14}\n", r.key, r.predicted_s * 1e3,
                     r.measured_s * 1e3, error_text(r),
                     fmt::format("{}/{}", r.predicted_ops, r.measured_ops));
}

}  // namespace

KernelFamily family_of(const program::Op& op) {
  if (std::holds_alternative<program::Gemm>(op.payload)) return KernelFamily::gemm;
  if (!std::holds_alternative<program::Kernel>(op.payload)) return KernelFamily::communication;
  using program::KernelClass;
  switch (op.kernel_class) {
    case KernelClass::attention:
    case KernelClass::attention_backward:
      return KernelFamily::attention;
    case KernelClass::layer_norm:
    case KernelClass::layer_norm_backward:
      return KernelFamily::normalization;
    case KernelClass::softmax:
    case KernelClass::softmax_backward:
    case KernelClass::cross_entropy:
      return KernelFamily::softmax_loss;
    case KernelClass::optimizer:
      return KernelFamily::optimizer;
    case KernelClass::memset:
      return KernelFamily::memset;
    case KernelClass::elementwise:
    case KernelClass::dropout:
    case KernelClass::reduction:
    case KernelClass::embedding:
    case KernelClass::embedding_backward:
      return KernelFamily::elementwise;
  }
  return KernelFamily::elementwise;
}

KinetoValidation validate_kineto(const KinetoBreakdown& measured, const program::Program& program,
                                 const hw::HardwareProfile& hardware, Time simulated_iteration) {
  if (measured.steps.empty()) {
    throw std::invalid_argument(fmt::format("{}: {}", measured.source, kNoProfilerSteps));
  }
  const auto rank0 = std::find_if(program.ranks.begin(), program.ranks.end(),
                                  [](const program::RankProgram& r) { return r.rank == 0; });
  if (rank0 == program.ranks.end())
    throw std::invalid_argument("the scenario's Program recorded no rank 0");

  KinetoValidation v;
  v.trace = measured.source;
  constexpr int kFamilies = inputs::kKernelFamilyCount;
  std::vector<ValidationRow> rows(kFamilies);
  for (int f = 0; f < kFamilies; ++f)
    rows[f].key = std::string(to_string(static_cast<KernelFamily>(f)));
  for (const program::Op& op : rank0->ops) {
    if (!op.is_compute()) continue;
    ValidationRow& r = rows[static_cast<int>(family_of(op))];
    r.predicted_s += sim::compute_time(op, hardware).seconds();
    ++r.predicted_ops;
  }
  double busy = 0.0;
  for (const KinetoStep& s : measured.steps)
    busy += s.gpu_busy_s;
  v.gpu_busy.key = "GPU busy (sum / union)";
  v.gpu_busy.measured_s = busy / static_cast<double>(measured.steps.size());
  for (int f = 0; f < kFamilies; ++f) {
    const auto family = static_cast<KernelFamily>(f);
    rows[f].measured_s = measured.mean_family_s(family);
    rows[f].measured_ops = std::llround(measured.mean_family_count(family));
    if (rows[f].predicted_ops == 0 && rows[f].measured_ops == 0) continue;
    v.gpu_busy.predicted_s += rows[f].predicted_s;
    v.gpu_busy.predicted_ops += rows[f].predicted_ops;
    v.gpu_busy.measured_ops += rows[f].measured_ops;
    v.by_family.push_back(rows[f]);
  }
  v.step.key = "step (simulated / median)";
  v.step.predicted_s = simulated_iteration.seconds();
  v.step.measured_s = measured.median_step_s();
  return v;
}

std::string format_kineto_validation(const KinetoValidation& v) {
  std::string out = fmt::format(
      "{} on {}: predicted against the PyTorch profiler trace {}\n"
      "(per step; predicted: each op on an idle GPU, summed; error = predicted / measured - 1)\n\n",
      v.scenario, v.hardware, v.trace);
  out += fmt::format("  {:<26}{:>14}{:>14}{:>12}{:>14}\n", "family", "predicted ms", "measured ms",
                     "error", "ops p/m");
  for (const ValidationRow& r : v.by_family)
    out += row_text(r);
  out += row_text(v.gpu_busy);
  out += row_text(v.step);
  return out;
}

}  // namespace trainsim::reports
