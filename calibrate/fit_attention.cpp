#include "calibrate/fit_attention.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <Eigen/Dense>
#include <algorithm>
#include <set>
#include <string>

#include "models/errors.hpp"
#include "sim/compute_model.hpp"
#include "units/format.hpp"

namespace trainsim::calibrate {
namespace {

// Beyond this per call the rows are not attention calls (a unit error, a hung GPU).
constexpr double kMaxFixedSeconds = 0.1;

bool backward(const RawMeasurement& r) {
  return r.benchmark == Benchmark::attention_backward;
}

// The backward's element-wise kernels around its main one, as MetaBackend::
// flash_attention_backward records them: the pre-pass D = rowsum(dO ∘ O) (reads dO and O,
// writes D in fp32) and the conversion of the fp32 dQ accumulator into dqkv's dtype. A
// backward row times both too (cuDNN's dot_do_o and convert_dq), so the fit charges them as
// the replay does and fits the main kernel on the rest.
Time side_kernels(const RawMeasurement& r, const hw::HardwareProfile& profile) {
  if (!backward(r)) return Time::zero();
  const double rows = static_cast<double>(r.batch) * static_cast<double>(r.m);
  const double elements = rows * static_cast<double>(r.k);
  const auto element = static_cast<double>(bytes_per_element(r.dtype));
  program::Kernel delta;
  delta.read = Bytes::of(2.0 * elements * element);
  delta.written = Bytes::of(4.0 * rows);
  program::Kernel dq_convert;
  dq_convert.read = Bytes::of(4.0 * elements);
  dq_convert.written = Bytes::of(elements * element);
  return sim::kernel_time(delta, profile, program::KernelClass::elementwise) +
         sim::kernel_time(dq_convert, profile, program::KernelClass::elementwise);
}

struct PassFit {
  double efficiency = 0.0;
  Time fixed;
};

// Least squares of Σ((F_i·x + y + L) / t_i − 1)² over x = 1 / (peak·efficiency) and y = the
// fixed time (rows scaled by 1 / t_i: relative error); y < 0 refits with y = 0.
PassFit fit_pass(const std::vector<const RawMeasurement*>& rows,
                 const hw::HardwareProfile& profile, double peak, const char* pass) {
  const double launch = profile.gpu.kernel_launch.seconds();
  std::set<double> distinct;
  for (const RawMeasurement* r : rows)
    distinct.insert(r->flops.count());
  if (distinct.size() < 2) {
    throw Infeasible(fmt::format("attention fit ({}): {} fitting rows with {} distinct FLOP "
                                 "counts; need two to separate efficiency from fixed time",
                                 pass, rows.size(), distinct.size()));
  }
  const auto n = static_cast<Eigen::Index>(rows.size());
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double t = rows[static_cast<std::size_t>(i)]->time.seconds();
    a(i, 0) = rows[static_cast<std::size_t>(i)]->flops.count() / t;
    a(i, 1) = 1.0 / t;
    b(i) = 1.0 - (launch + side_kernels(*rows[static_cast<std::size_t>(i)], profile).seconds()) / t;
  }
  const Eigen::Vector2d both = a.colPivHouseholderQr().solve(b);
  double x = both(0);
  double y = both(1);
  if (!(y >= 0.0)) {
    y = 0.0;
    x = a.col(0).dot(b) / a.col(0).squaredNorm();
  }
  const double efficiency = 1.0 / (x * peak);
  if (!(efficiency > 0.0 && efficiency <= 1.0)) {
    throw Infeasible(fmt::format("attention fit ({}): efficiency {:.4g} outside (0, 1]", pass,
                                 efficiency));
  }
  if (!(y <= kMaxFixedSeconds)) {
    throw Infeasible(fmt::format("attention fit ({}): a fixed time of {:.4g} s per call; the rows "
                                 "cannot be attention calls",
                                 pass, y));
  }
  return {efficiency, Time::from_seconds(y)};
}

}  // namespace

Time predict_attention_row(const RawMeasurement& row, const hw::HardwareProfile& profile) {
  program::Kernel kernel;
  kernel.flops = row.flops;
  return side_kernels(row, profile) +
         sim::kernel_time(kernel, profile,
                          backward(row) ? program::KernelClass::attention_backward
                                        : program::KernelClass::attention);
}

FitSummary fit_attention(const std::vector<const RawMeasurement*>& rows,
                         hw::HardwareProfile& profile) {
  const RowSplit split = split_rows(rows);
  const auto peak = profile.gpu.peak.find(DType::bf16);
  if (peak == profile.gpu.peak.end())
    throw Infeasible("attention fit: the base profile has no bf16 peak");
  if (!profile.gpu.attention) profile.gpu.attention = hw::AttentionSpec{};
  hw::AttentionSpec& spec = *profile.gpu.attention;
  FitSummary s;
  s.what = "attention";
  std::vector<const RawMeasurement*> passes[2];
  for (const RawMeasurement* r : split.fit)
    passes[backward(*r) ? 1 : 0].push_back(r);
  std::vector<std::string> values;
  if (!passes[0].empty()) {
    const PassFit f = fit_pass(passes[0], profile, peak->second.flops_per_second(), "forward");
    spec.efficiency = f.efficiency;
    spec.fixed_time = f.fixed;
    s.fields.insert(s.fields.end(), {"gpu.attention.efficiency", "gpu.attention.fixed_time"});
    values.push_back(fmt::format("efficiency {:.4f}, fixed_time {}", f.efficiency, f.fixed));
  }
  if (!passes[1].empty()) {
    const PassFit f = fit_pass(passes[1], profile, peak->second.flops_per_second(), "backward");
    spec.backward_efficiency = f.efficiency;
    spec.backward_fixed_time = f.fixed;
    s.fields.insert(s.fields.end(),
                    {"gpu.attention.backward_efficiency", "gpu.attention.backward_fixed_time"});
    values.push_back(
        fmt::format("backward_efficiency {:.4f}, backward_fixed_time {}", f.efficiency, f.fixed));
  }
  if (spec.efficiency <= 0.0 || spec.backward_efficiency <= 0.0) {
    throw Infeasible(
        "attention fit: the base profile has no gpu.attention and the rows give only one pass; "
        "measure both (attention and attention_backward rows)");
  }
  const auto predict = [&profile](const RawMeasurement& r) {
    return predict_attention_row(r, profile).seconds();
  };
  record_predictions(s, rows, split, predict);
  const auto [fewest, most] = std::minmax_element(
      rows.begin(), rows.end(),
      [](const RawMeasurement* a, const RawMeasurement* b) { return a->flops < b->flops; });
  const auto [shortest, longest] = std::minmax_element(
      rows.begin(), rows.end(),
      [](const RawMeasurement* a, const RawMeasurement* b) { return a->m < b->m; });
  s.ranges =
      fmt::format("causal FLOPs {:.3g} to {:.3g} per call, sequences {} to {}",
                  (*fewest)->flops.count(), (*most)->flops.count(), (*shortest)->m, (*longest)->m);
  s.values = fmt::format("{}", fmt::join(values, "; "));
  return s;
}

}  // namespace trainsim::calibrate
