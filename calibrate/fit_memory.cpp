#include "calibrate/fit_memory.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <set>

#include "models/errors.hpp"
#include "sim/compute_model.hpp"
#include "units/format.hpp"

namespace trainsim::calibrate {
namespace {

/// The kernel class a row's kernels belong to: the elementwise benchmark runs the executor's
/// element-wise kernels; a copy and an empty kernel have none (gpu.memory_efficiency).
std::optional<program::KernelClass> class_of(const RawMeasurement& row) {
  if (row.benchmark == Benchmark::elementwise) return program::KernelClass::elementwise;
  return std::nullopt;
}

std::set<std::int64_t> distinct_bytes(const std::vector<const RawMeasurement*>& rows) {
  std::set<std::int64_t> distinct;
  for (const RawMeasurement* r : rows)
    distinct.insert(r->bytes_moved.count());
  return distinct;
}

/// 1 / efficiency and the launch overhead from rows timed as bytes / (bandwidth x efficiency)
/// + launch: row i gives t_i = (bytes_i / bandwidth) x + launch, divided by t_i so that the
/// least squares minimise relative error.
Eigen::Vector2d solve_streams(const std::vector<const RawMeasurement*>& rows, double bandwidth) {
  const auto n = static_cast<Eigen::Index>(rows.size());
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const RawMeasurement& r = *rows[static_cast<std::size_t>(i)];
    const double t = r.time.seconds();
    a(i, 0) = r.bytes_moved.as_double() / bandwidth / t;
    a(i, 1) = 1.0 / t;
  }
  return a.colPivHouseholderQr().solve(b);
}

double checked_efficiency(double inverse, std::string_view what, const hw::HardwareProfile& p) {
  const double efficiency = 1.0 / inverse;
  if (!(inverse > 0.0) || efficiency > 1.0) {
    throw Infeasible(fmt::format(
        "memory fit: {} {:.4g} is outside (0, 1]: the rows move bytes faster than the base "
        "profile's memory_bandwidth {} allows (or the timings are inconsistent)",
        what, efficiency, p.gpu.memory_bandwidth));
  }
  return efficiency;
}

}  // namespace

Time predict_memory_row(const RawMeasurement& row, const hw::HardwareProfile& profile) {
  program::Kernel kernel;
  kernel.read = row.bytes_moved;  // the model charges read + written alike
  return sim::kernel_time(kernel, profile, class_of(row));
}

FitSummary fit_memory(const std::vector<const RawMeasurement*>& rows,
                      hw::HardwareProfile& profile) {
  const RowSplit split = split_rows(rows);
  const std::set<std::int64_t> distinct = distinct_bytes(split.fit);
  if (distinct.size() < 2) {
    throw Infeasible(fmt::format(
        "memory fit: {} fitting rows with {} distinct bytes_moved; need at least two (e.g. "
        "launch rows and copies) to separate kernel_launch from memory_efficiency",
        split.fit.size(), distinct.size()));
  }
  // Copies and empty kernels give memory_efficiency and the launch; element-wise rows, with
  // that launch, their class's share (gpu.kernels.elementwise). Without copies of two sizes
  // all rows give one efficiency, as copies and element-wise kernels then cannot be told
  // apart: it becomes memory_efficiency and a base figure for the class is dropped.
  std::vector<const RawMeasurement*> streams;
  std::vector<const RawMeasurement*> elementwise;
  for (const RawMeasurement* r : split.fit)
    (class_of(*r) ? elementwise : streams).push_back(r);
  const bool per_class = !elementwise.empty() && distinct_bytes(streams).size() >= 2;
  const double bandwidth = profile.gpu.memory_bandwidth.bytes_per_second();
  const Eigen::Vector2d x = solve_streams(per_class ? streams : split.fit, bandwidth);
  const double efficiency = checked_efficiency(x(0), "memory_efficiency", profile);
  if (x(1) < 0.0) {
    throw Infeasible(
        fmt::format("memory fit: kernel_launch came out negative ({:.3g} s); add "
                    "launch rows or smaller copies",
                    x(1)));
  }
  profile.gpu.memory_efficiency = efficiency;
  profile.gpu.kernel_launch = Time::from_seconds(x(1));
  FitSummary s;
  s.what = "memory";
  s.fields = {"gpu.memory_efficiency", "gpu.kernel_launch"};
  const bool had_class = profile.gpu.kernel_efficiency.erase(program::KernelClass::elementwise) > 0;
  std::string class_value;
  if (per_class) {
    // t_i - launch = (bytes_i / bandwidth) y, y = 1 / efficiency, in relative error:
    // minimise Σ ((a_i y + launch / t_i) - 1)² with a_i = bytes_i / (bandwidth t_i).
    double aa = 0.0;
    double ab = 0.0;
    for (const RawMeasurement* r : elementwise) {
      const double t = r->time.seconds();
      const double a = r->bytes_moved.as_double() / bandwidth / t;
      aa += a * a;
      ab += a * (1.0 - x(1) / t);
    }
    const double share = checked_efficiency(ab / aa, "kernels.elementwise", profile);
    profile.gpu.kernel_efficiency[program::KernelClass::elementwise] = share;
    class_value = fmt::format(", kernels.elementwise {:.4f} ({} rows)", share, elementwise.size());
  }
  if (per_class || had_class) s.fields.push_back("gpu.kernels.elementwise");

  s.fitted_rows = split.fit.size();
  s.held_out = held_out_errors(split.held_out, [&profile](const RawMeasurement& r) {
    return predict_memory_row(r, profile).seconds();
  });
  const auto [lo, hi] = std::minmax_element(distinct.begin(), distinct.end());
  s.ranges = fmt::format("bytes moved {} to {}", Bytes::of(*lo), Bytes::of(*hi));
  s.values = fmt::format("memory_efficiency {:.4f}, kernel_launch {}{}", efficiency,
                         profile.gpu.kernel_launch, class_value);
  return s;
}

}  // namespace trainsim::calibrate
