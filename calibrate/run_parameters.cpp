#include "calibrate/run_parameters.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace trainsim::calibrate {

std::vector<RunParameter> whole_run_parameters(const hw::HardwareProfile& base) {
  if (!base.host) {
    throw std::invalid_argument(
        "fit-runs: the base profile '" + base.name +
        "' has no host section: whole runs are paced by the host's dispatch where kernels are "
        "short, so its figures must be fitted too; add `host:` (framework, dispatch, "
        "sync_latency, sync_points) with guessed figures and their reasons first");
  }
  std::vector<RunParameter> out;
  out.push_back(RunParameter{
      "host dispatch per compute op",
      {"host.dispatch.gemm", "host.dispatch.kernel"},
      "us",
      2.0,
      80.0,
      "2 us is a bare cudaLaunchKernel on a recent driver (fidelity-data.md §1.1); an eager "
      "PyTorch op costs 5-10 us of CPU and ~20 us from the call to its kernel's start (NVIDIA, "
      "High); one recorded op stands for up to ~4 such framework steps in Megatron's layers (the "
      "kernels the executor fuses: apex's LayerNorm backward is three, the attention's permute "
      "a copy, autograd's gradient accumulations; and the module calls and views that launch "
      "nothing)",
      [](const hw::HardwareProfile& p) { return p.host->kernel.us(); },
      [](hw::HardwareProfile& p, double v) {
        p.host->gemm = Time::from_us(v);
        p.host->kernel = Time::from_us(v);
      }});
  out.push_back(RunParameter{
      "host dispatch per communication op",
      {"host.dispatch.collective", "host.dispatch.p2p"},
      "us",
      5.0,
      150.0,
      "a torch.distributed call: Python, ProcessGroupNCCL's stream waits and work object, the "
      "NCCL launch; framework-level small collectives take ~80 us end to end on 8 x A100 "
      "against ~44 us in nccl-tests (hardware-data.md §3.7, §3.3), so tens of us of host "
      "work; 150 us allows twice that",
      [](const hw::HardwareProfile& p) { return p.host->collective.us(); },
      [](hw::HardwareProfile& p, double v) {
        p.host->collective = Time::from_us(v);
        p.host->p2p = Time::from_us(v);
      }});
  out.push_back(RunParameter{
      "achieved HBM fraction of streaming kernels",
      {"gpu.memory_efficiency"},
      "",
      0.60,
      0.93,
      "framework element-wise kernels reach 60-90 % of HBM peak (fidelity-data.md §2.1: fused "
      "LayerNorm 75-81 %, QuACK softmax 90 %; D2D copy on H100 86.7 %, hardware-data.md §1.4); "
      "kernel classes with a measured figure of their own (gpu.kernels) are not moved",
      [](const hw::HardwareProfile& p) { return p.gpu.memory_efficiency; },
      [](hw::HardwareProfile& p, double v) { p.gpu.memory_efficiency = v; }});
  out.push_back(RunParameter{
      "device overhead per kernel",
      {"gpu.kernel_launch"},
      "us",
      0.5,
      6.0,
      "the gap between back-to-back kernels on one stream and a kernel's ramp and tail: ~1-3 us "
      "on A100/H100-class GPUs for queued launches (fidelity-data.md §1.1); 6 us allows old "
      "drivers",
      [](const hw::HardwareProfile& p) { return p.gpu.kernel_launch.us(); },
      [](hw::HardwareProfile& p, double v) { p.gpu.kernel_launch = Time::from_us(v); }});
  return out;
}

std::vector<Confounded> confounded_parameters(const std::vector<std::vector<double>>& jacobian,
                                              const std::vector<double>& ranges, double threshold,
                                              double min_effect) {
  std::vector<Confounded> out;
  if (jacobian.empty()) return out;
  const auto rows = static_cast<Eigen::Index>(jacobian.size());
  const auto cols = static_cast<Eigen::Index>(jacobian.front().size());
  Eigen::MatrixXd j(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r) {
    for (Eigen::Index c = 0; c < cols; ++c)
      j(r, c) = jacobian[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
  }
  // A parameter the rows hardly respond to cannot be fitted from them.
  std::vector<bool> alive(static_cast<std::size_t>(cols), true);
  for (Eigen::Index c = 0; c < cols; ++c) {
    const double rms = j.col(c).norm() / std::sqrt(static_cast<double>(rows));
    if (rms * ranges.at(static_cast<std::size_t>(c)) < min_effect) {
      alive[static_cast<std::size_t>(c)] = false;
      out.push_back({static_cast<std::size_t>(c), static_cast<std::size_t>(c), 1.0});
    }
  }
  std::vector<Eigen::Index> kept;
  for (Eigen::Index c = 0; c < cols; ++c) {
    if (alive[static_cast<std::size_t>(c)]) kept.push_back(c);
  }
  const auto k = static_cast<Eigen::Index>(kept.size());
  Eigen::MatrixXd live(rows, k);
  for (Eigen::Index i = 0; i < k; ++i)
    live.col(i) = j.col(kept[static_cast<std::size_t>(i)]);
  // Covariance of the estimates up to the residual variance: (J'J)^-1 (a pseudo-inverse, so
  // an exactly singular pair shows as |correlation| 1 rather than failing).
  const Eigen::MatrixXd cov =
      (live.transpose() * live).completeOrthogonalDecomposition().pseudoInverse();
  for (Eigen::Index a = 0; a < k; ++a) {
    for (Eigen::Index b = a + 1; b < k; ++b) {
      const double denom = std::sqrt(cov(a, a) * cov(b, b));
      const double corr = denom > 0.0 ? cov(a, b) / denom : 1.0;
      if (std::abs(corr) > threshold) {
        out.push_back({static_cast<std::size_t>(kept[static_cast<std::size_t>(a)]),
                       static_cast<std::size_t>(kept[static_cast<std::size_t>(b)]), corr});
      }
    }
  }
  return out;
}

}  // namespace trainsim::calibrate
