#include "calibrate/fit_memory.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <set>

#include "models/errors.hpp"
#include "sim/compute_model.hpp"
#include "units/format.hpp"

namespace trainsim::calibrate {

Time predict_memory_row(const RawMeasurement& row, const hw::HardwareProfile& profile) {
  program::Kernel kernel;
  kernel.read = row.bytes_moved;  // the model charges read + written alike
  return sim::kernel_time(kernel, profile);
}

FitSummary fit_memory(const std::vector<const RawMeasurement*>& rows,
                      hw::HardwareProfile& profile) {
  const RowSplit split = split_rows(rows);
  std::set<std::int64_t> distinct;
  for (const RawMeasurement* r : split.fit)
    distinct.insert(r->bytes_moved.count());
  if (distinct.size() < 2) {
    throw Infeasible(fmt::format(
        "memory fit: {} fitting rows with {} distinct bytes_moved; need at least two (e.g. "
        "launch rows and copies) to separate kernel_launch from memory_efficiency",
        split.fit.size(), distinct.size()));
  }
  // Row i: t_i = (bytes_i / bandwidth) * x + launch, x = 1 / efficiency; each equation divided
  // by t_i so that the least squares minimise relative error.
  const auto n = static_cast<Eigen::Index>(split.fit.size());
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(n);
  const double bandwidth = profile.gpu.memory_bandwidth.bytes_per_second();
  for (Eigen::Index i = 0; i < n; ++i) {
    const RawMeasurement& r = *split.fit[static_cast<std::size_t>(i)];
    const double t = r.time.seconds();
    a(i, 0) = r.bytes_moved.as_double() / bandwidth / t;
    a(i, 1) = 1.0 / t;
  }
  const Eigen::Vector2d x = a.colPivHouseholderQr().solve(b);
  const double efficiency = 1.0 / x(0);
  if (!(x(0) > 0.0) || efficiency > 1.0) {
    throw Infeasible(fmt::format(
        "memory fit: memory_efficiency {:.4g} is outside (0, 1]: the rows move bytes faster than "
        "the base profile's memory_bandwidth {} allows (or the timings are inconsistent)",
        efficiency, profile.gpu.memory_bandwidth));
  }
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
  s.fitted_rows = split.fit.size();
  s.held_out = held_out_errors(split.held_out, [&profile](const RawMeasurement& r) {
    return predict_memory_row(r, profile).seconds();
  });
  const auto [lo, hi] = std::minmax_element(distinct.begin(), distinct.end());
  s.ranges = fmt::format("bytes moved {} to {}", Bytes::of(*lo), Bytes::of(*hi));
  s.values = fmt::format("memory_efficiency {:.4f}, kernel_launch {}", efficiency,
                         profile.gpu.kernel_launch);
  s.fields = {"gpu.memory_efficiency", "gpu.kernel_launch"};
  return s;
}

}  // namespace trainsim::calibrate
