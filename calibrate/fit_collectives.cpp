#include "calibrate/fit_collectives.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
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

/// An inter_node row measures the network when its modelled time changes by more than
/// kMinSensitivity of itself per kSensitivityStep the inter-node efficiency moves.
constexpr double kSensitivityStep = 1.1;
constexpr double kMinSensitivity = 0.02;

/// What an inter_node row says, as LinkTimes: the model's time for it (NCCL's algorithm
/// choice, the flows inside nodes at the profile's intra-node curve, those across at the
/// inter-node efficiency e) is not linear in 1/e once an NVLink chain is the bottleneck, so
/// e is solved by bisection (the time falls as e rises; [1e-4, 1]) and handed back as the
/// part of the time beyond base_latency that the chosen algorithm's hops take and the
/// transfer time e implies at efficiency 1: efficiency_points divides them back into e.
LinkTimes solved_inter_row(const RawMeasurement& row, const hw::HardwareProfile& profile,
                           sim::Topology& topology) {
  const program::CollectiveKind kind = *collective_kind(row.benchmark);
  const std::vector<std::int32_t> gpus = first_gpus(row.group_size);
  const double t = row.time.seconds();
  // The profile with the inter-node curve (every group size's) a constant e.
  hw::HardwareProfile trial = profile;
  trial.collectives.inter_node_efficiency_by_group_size.clear();
  const auto model = [&](double e) {
    trial.collectives.inter_node_efficiency = hw::EfficiencyCurve::constant(e);
    return sim::estimate_collective_parts(kind, row.bytes, gpus, topology, trial);
  };
  double low = 1e-4;  // model slower than measured at `low`, faster at `high` (in log space)
  double high = 1.0;
  if (model(high).total().seconds() >= t) {
    low = high;
  } else if (model(low).total().seconds() <= t) {
    high = low;
  } else {
    for (int i = 0; i < 40; ++i) {
      const double mid = std::sqrt(low * high);
      (model(mid).total().seconds() > t ? low : high) = mid;
    }
  }
  const double e = std::sqrt(low * high);
  const sim::CollectiveEstimate at = model(e);
  LinkTimes m;
  m.hops = at.latency.seconds() - profile.collectives.base_latency.seconds();
  // A row pins e only where the model's time falls as e rises and NCCL's choice stays the
  // same around it. A row whose time does not fall only bounds e from below: NCCL's tree on
  // two full nodes is bound by its NVLink chains (hardware-data.md §3.1: measure the
  // network with NCCL_ALGO=Ring). A row at the edge between algorithms is read by whichever
  // its noise lands on: below the tree's NVLink floor, as a ring at an efficiency far from
  // the truth. Neither gives a point (full_speed 0).
  const double here = at.total().seconds();
  const double up = std::min(1.0, e * kSensitivityStep);
  const double down = e / kSensitivityStep;
  const sim::CollectiveEstimate at_up = model(up);
  const sim::CollectiveEstimate at_down = model(down);
  // Above 1 / kSensitivityStep the step up is cut short at 1: only the step down is judged.
  const bool capped = e * kSensitivityStep > 1.0;
  const bool falls = capped || here - at_up.total().seconds() > kMinSensitivity * t;
  const bool rises = at_down.total().seconds() - here > kMinSensitivity * t;
  const bool informative =
      falls && rises && at_up.algorithm == at.algorithm && at_down.algorithm == at.algorithm;
  m.full_speed = informative ? e * std::max(0.0, t - at.latency.seconds()) : 0.0;
  return m;
}

class RowModeller {
 public:
  explicit RowModeller(const hw::HardwareProfile& profile) : profile_(profile), unit_(profile) {
    unit_.collectives.base_latency = Time::zero();
    unit_.collectives.intra_node_efficiency = hw::EfficiencyCurve::constant(1.0);
    unit_.collectives.inter_node_efficiency = hw::EfficiencyCurve::constant(1.0);
    unit_.collectives.intra_node_efficiency_by_group_size.clear();
    unit_.collectives.inter_node_efficiency_by_group_size.clear();
  }
  LinkTimes operator()(const RawMeasurement& row) {
    const program::CollectiveKind kind = *collective_kind(row.benchmark);
    auto it = topologies_.find(row.group_size);
    if (it == topologies_.end()) {
      it = topologies_
               .emplace(row.group_size,
                        sim::Topology(unit_, static_cast<std::int32_t>(row.group_size)))
               .first;
    }
    sim::Topology& topology = it->second;
    if (row.tier == Tier::inter_node) return solved_inter_row(row, profile_, topology);
    const std::vector<std::int32_t> gpus = first_gpus(row.group_size);
    // One node: one ring, at one efficiency.
    const sim::CollectiveEstimate parts =
        sim::estimate_collective_parts(kind, row.bytes, gpus, topology, unit_);
    LinkTimes m;
    m.hops = parts.latency.seconds();
    m.full_speed = parts.transfer.seconds();
    return m;
  }

 private:
  const hw::HardwareProfile& profile_;  ///< with the intra-node figures already fitted
  hw::HardwareProfile unit_;            ///< the profile with no base latency and efficiency 1
  std::map<std::int64_t, sim::Topology> topologies_;
};

std::string curve_text(const std::vector<hw::EfficiencyCurve::Point>& points) {
  return fmt::format(
      "{} curve points, {:.4f} at {} to {:.4f} at {}", points.size(), points.front().efficiency,
      Bytes::of(static_cast<std::int64_t>(points.front().size)), points.back().efficiency,
      Bytes::of(static_cast<std::int64_t>(points.back().size)));
}

}  // namespace

double latency_at_smallest(const std::vector<const RawMeasurement*>& rows,
                           const std::vector<LinkTimes>& parts) {
  std::int64_t smallest = rows.front()->bytes.count();
  for (const RawMeasurement* r : rows)
    smallest = std::min(smallest, r->bytes.count());
  std::vector<double> alphas;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i]->bytes.count() != smallest) continue;
    alphas.push_back(rows[i]->time.seconds() - parts[i].hops - parts[i].full_speed);
  }
  return std::max(0.0, median(alphas));
}

std::vector<hw::EfficiencyCurve::Point> efficiency_points(
    const std::vector<const RawMeasurement*>& rows, const std::vector<LinkTimes>& parts,
    double alpha) {
  std::map<std::int64_t, std::vector<double>> by_size;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double t = rows[i]->time.seconds();
    const double bandwidth_time = t - alpha - parts[i].hops;
    if (bandwidth_time < kMinBandwidthShare * t || parts[i].full_speed <= 0.0) continue;
    by_size[rows[i]->bytes.count()].push_back(parts[i].full_speed / bandwidth_time);
  }
  std::vector<hw::EfficiencyCurve::Point> points;
  for (const auto& [size, values] : by_size)
    points.push_back({static_cast<double>(size), std::min(1.0, median(values))});
  return points;
}

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
  std::vector<LinkTimes> models;
  for (const RawMeasurement* r : split.fit)
    models.push_back(modeller(*r));

  FitSummary s;
  s.what = what;
  if (tier == Tier::intra_node) {
    profile.collectives.base_latency = Time::from_seconds(latency_at_smallest(split.fit, models));
    s.fields.push_back("collectives.base_latency");
  }
  const double alpha = profile.collectives.base_latency.seconds();

  const std::vector<hw::EfficiencyCurve::Point> points =
      efficiency_points(split.fit, models, alpha);
  if (points.empty()) {
    throw Infeasible(fmt::format(
        "{} fit: no size where bandwidth time is {:.0f} % or more of the measured time; measure "
        "larger messages",
        what, kMinBandwidthShare * 100.0));
  }
  const bool inter = tier == Tier::inter_node;
  (inter ? profile.collectives.inter_node_efficiency : profile.collectives.intra_node_efficiency) =
      hw::EfficiencyCurve(points);
  s.fields.push_back(inter ? "collectives.inter_node_efficiency"
                           : "collectives.intra_node_efficiency");

  // One curve per group size when the rows tell sizes apart: NCCL's channels and algorithm
  // change with the group, which one curve for all sizes averages away.
  std::map<std::int64_t, std::pair<std::vector<const RawMeasurement*>, std::vector<LinkTimes>>>
      by_group;
  for (std::size_t i = 0; i < split.fit.size(); ++i) {
    auto& [group_rows, group_models] = by_group[split.fit[i]->group_size];
    group_rows.push_back(split.fit[i]);
    group_models.push_back(models[i]);
  }
  auto& by_group_size = inter ? profile.collectives.inter_node_efficiency_by_group_size
                              : profile.collectives.intra_node_efficiency_by_group_size;
  if (by_group.size() <= 1 && !by_group_size.empty()) {
    // One group size measured: the tier's curve is its curve; the base's per-size curves
    // would override it, so they go (the writer drops the field).
    by_group_size.clear();
    s.fields.push_back(inter ? "collectives.inter_node_efficiency_by_group_size"
                             : "collectives.intra_node_efficiency_by_group_size");
  }
  if (by_group.size() > 1) {
    by_group_size.clear();
    for (const auto& [group_size, group] : by_group) {
      // A group whose rows mostly do not measure the tier (inter-node: NCCL's tree on two
      // nodes, NVLink-bound) gets no curve of its own: the curve of the nearest smaller
      // group that has one serves it, else the tier's (its times hardly depend on it).
      const auto informative = std::count_if(group.second.begin(), group.second.end(),
                                             [](const LinkTimes& m) { return m.full_speed > 0; });
      if (2 * informative < static_cast<std::ptrdiff_t>(group.second.size())) continue;
      const auto group_points = efficiency_points(group.first, group.second, alpha);
      if (!group_points.empty()) by_group_size.emplace(group_size, group_points);
    }
    s.fields.push_back(inter ? "collectives.inter_node_efficiency_by_group_size"
                             : "collectives.intra_node_efficiency_by_group_size");
    for (const auto& [group_size, curve] : by_group_size) {
      FitSummary part;
      part.what = fmt::format("{} GPUs", group_size);
      part.fitted_rows = by_group[group_size].first.size();
      std::vector<const RawMeasurement*> held_out;
      for (const RawMeasurement* r : split.held_out) {
        if (r->group_size == group_size) held_out.push_back(r);
      }
      part.held_out = held_out_errors(held_out, [&profile](const RawMeasurement& r) {
        return predict_collective_row(r, profile).seconds();
      });
      part.values = curve_text(curve.points());
      s.parts.push_back(std::move(part));
    }
  }

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
      "{}{}{}",
      tier == Tier::intra_node ? fmt::format("base_latency {}, ", profile.collectives.base_latency)
                               : std::string(),
      curve_text(points),
      by_group_size.empty() ? std::string()
                            : fmt::format("; curves for {} group sizes", by_group_size.size()));
  return s;
}

}  // namespace trainsim::calibrate
