#include "sim/hardware_profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

#include "models/errors.hpp"

namespace trainsim::hw {

std::string_view to_string(CollectiveAlgorithm algorithm) {
  return algorithm == CollectiveAlgorithm::tree ? "tree" : "ring";
}


EfficiencyCurve::EfficiencyCurve(std::vector<Point> points) : points_(std::move(points)) {}

double EfficiencyCurve::at(double size) const {
  if (points_.empty()) return 1.0;
  if (size <= points_.front().size) return points_.front().efficiency;
  if (size >= points_.back().size) return points_.back().efficiency;
  const auto upper = std::upper_bound(points_.begin(), points_.end(), size,
                                      [](double s, const Point& p) { return s < p.size; });
  const Point& hi = *upper;
  const Point& lo = *(upper - 1);
  const double w =
      (std::log2(size) - std::log2(lo.size)) / (std::log2(hi.size) - std::log2(lo.size));
  return lo.efficiency + w * (hi.efficiency - lo.efficiency);
}

double GemmModel::max_efficiency_for(DType dtype) const {
  const auto it = max_efficiency_by_dtype.find(dtype);
  return it == max_efficiency_by_dtype.end() ? max_efficiency : it->second;
}

double GpuSpec::memory_efficiency_for(program::KernelClass kernel_class) const {
  const auto it = kernel_efficiency.find(kernel_class);
  return it == kernel_efficiency.end() ? memory_efficiency : it->second;
}

const EfficiencyCurve& CollectiveSpec::efficiency_curve(bool inter_node,
                                                        std::int64_t group_size) const {
  const auto& by_size =
      inter_node ? inter_node_efficiency_by_group_size : intra_node_efficiency_by_group_size;
  // The last listed size <= group_size: NCCL's behaviour changes in steps with the group
  // (channels, algorithm), so a measured curve stands for the sizes up to the next one.
  auto it = by_size.upper_bound(group_size);
  if (it == by_size.begin()) return inter_node ? inter_node_efficiency : intra_node_efficiency;
  return std::prev(it)->second;
}

std::vector<std::string> HardwareProfile::guessed_fields() const {
  std::vector<std::string> out;
  for (const auto& [field, source] : provenance) {
    if (source.rfind("guess", 0) == 0) out.push_back(field);
  }
  return out;
}

FlopRate HardwareProfile::peak(DType dtype) const {
  if (auto it = gpu.peak.find(dtype); it != gpu.peak.end()) return it->second;
  if (dtype == DType::fp8) {
    throw Infeasible(fmt::format(
        "training.precision: fp8, but hardware profile '{}' has no gpu.peak.fp8 (a GPU without "
        "FP8 tensor cores, such as the A100 or V100, or a profile that does not list them); use "
        "training.precision bf16 or an FP8 GPU's profile (dgx-h100, dgx-h200)",
        name));
  }
  throw Infeasible(
      fmt::format("hardware profile '{}' has no peak FLOP rate for {}", name, to_string(dtype)));
}

HardwareProfile HardwareProfile::with_nic_bandwidth(Bandwidth nic_bandwidth) const {
  if (!(nic_bandwidth.bytes_per_second() > 0.0)) {
    throw std::invalid_argument(
        fmt::format("network.nic_bandwidth override: {} GB/s; must be a positive bandwidth",
                    nic_bandwidth.gb_per_s()));
  }
  HardwareProfile copy = *this;
  copy.network.nic_bandwidth = nic_bandwidth;
  copy.provenance["network.nic_bandwidth"] =
      fmt::format("overridden: {:g} GB/s per NIC per direction (profile: {:g} GB/s)",
                  nic_bandwidth.gb_per_s(), network.nic_bandwidth.gb_per_s());
  return copy;
}

}  // namespace trainsim::hw
