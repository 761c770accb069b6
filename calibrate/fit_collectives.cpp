#include "calibrate/fit_collectives.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "models/errors.hpp"
#include "sim/collective_model.hpp"
#include "sim/topology.hpp"
#include "units/format.hpp"

namespace trainsim::calibrate {
namespace {

std::vector<std::int32_t> first_gpus(std::int64_t n) {
  std::vector<std::int32_t> gpus(static_cast<std::size_t>(n));
  std::iota(gpus.begin(), gpus.end(), 0);
  return gpus;
}

void check_group(const RawMeasurement& row, Tier tier, const hw::HardwareProfile& profile) {
  const bool one_node = row.group_size <= profile.node.gpus;
  if (tier == Tier::intra_node && !one_node) {
    throw Infeasible(
        fmt::format("line {}: an intra_node {} over {} GPUs does not fit in one node of {} GPUs",
                    row.line, to_string(row.benchmark), row.group_size, profile.node.gpus));
  }
  if (tier == Tier::inter_node && one_node) {
    throw Infeasible(fmt::format(
        "line {}: an inter_node {} over {} GPUs fits in one node of {} GPUs; inter_node groups "
        "fill whole nodes in rank order, so it needs more than {} GPUs",
        row.line, to_string(row.benchmark), row.group_size, profile.node.gpus, profile.node.gpus));
  }
}

/// A row's modelled time split into its parts that do not depend on the fitted figures: hop
/// latencies and the flows' time at full link speed (T1).
struct RowModel {
  double hops = 0.0;
  double full_speed = 0.0;
};

class RowModeller {
 public:
  explicit RowModeller(const hw::HardwareProfile& profile) : unit_(profile) {
    unit_.collectives.base_latency = Time::zero();
    unit_.collectives.intra_node_efficiency = hw::EfficiencyCurve::constant(1.0);
    unit_.collectives.inter_node_efficiency = hw::EfficiencyCurve::constant(1.0);
  }
  RowModel operator()(const RawMeasurement& row) {
    const program::CollectiveKind kind = *collective_kind(row.benchmark);
    auto it = topologies_.find(row.group_size);
    if (it == topologies_.end()) {
      it = topologies_
               .emplace(row.group_size,
                        sim::Topology(unit_, static_cast<std::int32_t>(row.group_size)))
               .first;
    }
    sim::Topology& topology = it->second;
    const std::vector<std::int32_t> gpus = first_gpus(row.group_size);
    RowModel m;
    m.hops =
        sim::collective_latency(kind, row.group_size, sim::nodes_spanned(gpus, topology), unit_)
            .seconds();
    m.full_speed =
        sim::estimate_collective(kind, row.bytes, gpus, topology, unit_).seconds() - m.hops;
    return m;
  }

 private:
  hw::HardwareProfile unit_;  ///< the profile with no base latency and efficiency 1
  std::map<std::int64_t, sim::Topology> topologies_;
};

}  // namespace

Time predict_collective_row(const RawMeasurement& row, const hw::HardwareProfile& profile) {
  sim::Topology topology(profile, static_cast<std::int32_t>(row.group_size));
  return sim::estimate_collective(*collective_kind(row.benchmark), row.bytes,
                                  first_gpus(row.group_size), topology, profile);
}

FitSummary fit_collectives(const std::vector<const RawMeasurement*>& rows, Tier tier,
                           hw::HardwareProfile& profile) {
  for (const RawMeasurement* r : rows)
    check_group(*r, tier, profile);
  const RowSplit split = split_rows(rows);
  const std::string what = fmt::format("collectives {}", to_string(tier));
  if (split.fit.empty()) throw Infeasible(fmt::format("{} fit: no fitting rows", what));

  RowModeller modeller(profile);
  std::vector<RowModel> models;
  for (const RawMeasurement* r : split.fit)
    models.push_back(modeller(*r));

  FitSummary s;
  s.what = what;
  if (tier == Tier::intra_node) {
    // α where the bandwidth term vanishes: the smallest size measured.
    std::int64_t smallest = split.fit.front()->bytes.count();
    for (const RawMeasurement* r : split.fit)
      smallest = std::min(smallest, r->bytes.count());
    std::vector<double> alphas;
    for (std::size_t i = 0; i < split.fit.size(); ++i) {
      if (split.fit[i]->bytes.count() != smallest) continue;
      alphas.push_back(split.fit[i]->time.seconds() - models[i].hops - models[i].full_speed);
    }
    profile.collectives.base_latency = Time::from_seconds(std::max(0.0, median(alphas)));
    s.fields.push_back("collectives.base_latency");
  }
  const double alpha = profile.collectives.base_latency.seconds();

  std::map<std::int64_t, std::vector<double>> by_size;
  for (std::size_t i = 0; i < split.fit.size(); ++i) {
    const double t = split.fit[i]->time.seconds();
    const double bandwidth_time = t - alpha - models[i].hops;
    if (bandwidth_time < kMinBandwidthShare * t || models[i].full_speed <= 0.0) continue;
    by_size[split.fit[i]->bytes.count()].push_back(models[i].full_speed / bandwidth_time);
  }
  if (by_size.empty()) {
    throw Infeasible(fmt::format(
        "{} fit: no size where bandwidth time is {:.0f} % or more of the measured time; measure "
        "larger messages",
        what, kMinBandwidthShare * 100.0));
  }
  std::vector<hw::EfficiencyCurve::Point> points;
  for (const auto& [size, values] : by_size) {
    points.push_back({static_cast<double>(size), std::min(1.0, median(values))});
  }
  (tier == Tier::intra_node ? profile.collectives.intra_node_efficiency
                            : profile.collectives.inter_node_efficiency) =
      hw::EfficiencyCurve(points);
  s.fields.push_back(tier == Tier::intra_node ? "collectives.intra_node_efficiency"
                                              : "collectives.inter_node_efficiency");

  std::int64_t size_lo = rows.front()->bytes.count();
  std::int64_t size_hi = size_lo;
  std::int64_t group_lo = rows.front()->group_size;
  std::int64_t group_hi = group_lo;
  std::vector<std::string> kinds;
  for (const RawMeasurement* r : rows) {
    size_lo = std::min(size_lo, r->bytes.count());
    size_hi = std::max(size_hi, r->bytes.count());
    group_lo = std::min(group_lo, r->group_size);
    group_hi = std::max(group_hi, r->group_size);
    const std::string k(to_string(r->benchmark));
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) kinds.push_back(k);
  }
  s.fitted_rows = split.fit.size();
  s.held_out = held_out_errors(split.held_out, [&profile](const RawMeasurement& r) {
    return predict_collective_row(r, profile).seconds();
  });
  s.ranges = fmt::format("{}; sizes {} to {}; groups of {} to {} GPUs", fmt::join(kinds, ", "),
                         Bytes::of(size_lo), Bytes::of(size_hi), group_lo, group_hi);
  s.values = fmt::format(
      "{}{} curve points, {:.4f} at {} to {:.4f} at {}",
      tier == Tier::intra_node ? fmt::format("base_latency {}, ", profile.collectives.base_latency)
                               : std::string(),
      points.size(), points.front().efficiency,
      Bytes::of(static_cast<std::int64_t>(points.front().size)), points.back().efficiency,
      Bytes::of(static_cast<std::int64_t>(points.back().size)));
  return s;
}

}  // namespace trainsim::calibrate
