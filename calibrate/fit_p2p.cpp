#include "calibrate/fit_p2p.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "calibrate/fit_collectives.hpp"
#include "models/errors.hpp"
#include "sim/collective_model.hpp"
#include "sim/topology.hpp"
#include "units/format.hpp"

namespace trainsim::calibrate {
namespace {

/// The peer of GPU 0 in a row's tier.
std::int32_t peer_of(Tier tier, const hw::HardwareProfile& profile) {
  return tier == Tier::intra_node ? 1 : static_cast<std::int32_t>(profile.node.gpus);
}

}  // namespace

Time predict_p2p_row(const RawMeasurement& row, const hw::HardwareProfile& profile) {
  // Two whole nodes: the inter_node peer is the first GPU of the second.
  sim::Topology topology(profile, static_cast<std::int32_t>(2 * profile.node.gpus));
  return sim::estimate_p2p(row.bytes, 0, peer_of(row.tier, profile), topology, profile);
}

FitSummary fit_p2p(const std::vector<const RawMeasurement*>& rows, hw::HardwareProfile& profile) {
  if (profile.node.gpus < 2) {
    for (const RawMeasurement* r : rows) {
      if (r->tier == Tier::intra_node) {
        throw Infeasible(
            fmt::format("line {}: an intra_node send_recv needs two GPUs in a node; "
                        "the profile's node has {}",
                        r->line, profile.node.gpus));
      }
    }
  }
  const RowSplit split = split_rows(rows);
  FitSummary s;
  s.what = "p2p";
  // The profile with no base latency and efficiency 1: what is left of a row's time is the hop
  // and the transfer at link speed (T1).
  hw::HardwareProfile unit = profile;
  unit.collectives.p2p.base_latency = Time::zero();
  unit.collectives.p2p.intra_node_efficiency = hw::EfficiencyCurve::constant(1.0);
  unit.collectives.p2p.inter_node_efficiency = hw::EfficiencyCurve::constant(1.0);
  std::vector<const RawMeasurement*> tier_rows[2];
  std::vector<LinkTimes> tier_parts[2];
  for (const RawMeasurement* r : split.fit) {
    const auto t = static_cast<std::size_t>(r->tier == Tier::inter_node);
    LinkTimes parts;
    parts.hops = sim::p2p_latency(r->tier == Tier::inter_node, unit).seconds();
    parts.full_speed = predict_p2p_row(*r, unit).seconds() - parts.hops;
    tier_rows[t].push_back(r);
    tier_parts[t].push_back(parts);
  }
  const std::size_t alpha_tier = tier_rows[0].empty() ? 1 : 0;
  if (tier_rows[alpha_tier].empty()) throw Infeasible("p2p fit: no fitting rows");
  const double alpha = latency_at_smallest(tier_rows[alpha_tier], tier_parts[alpha_tier]);
  profile.collectives.p2p.base_latency = Time::from_seconds(alpha);
  s.fields.push_back("collectives.p2p.base_latency");
  s.values = fmt::format("base_latency {}", *profile.collectives.p2p.base_latency);

  std::int64_t size_lo = rows.front()->bytes.count();
  std::int64_t size_hi = size_lo;
  for (const RawMeasurement* r : rows) {
    size_lo = std::min(size_lo, r->bytes.count());
    size_hi = std::max(size_hi, r->bytes.count());
  }
  std::vector<std::string> tiers;
  std::vector<const RawMeasurement*> held_out_by_tier[2];
  for (std::size_t t = 0; t < 2; ++t) {
    if (tier_rows[t].empty()) continue;
    const Tier tier = t == 0 ? Tier::intra_node : Tier::inter_node;
    const auto points = efficiency_points(tier_rows[t], tier_parts[t], alpha);
    if (points.empty()) {
      throw Infeasible(fmt::format(
          "p2p {} fit: no size where bandwidth time is {:.0f} % or more of the measured time; "
          "measure larger messages",
          to_string(tier), kMinBandwidthShare * 100.0));
    }
    (t == 0 ? profile.collectives.p2p.intra_node_efficiency
            : profile.collectives.p2p.inter_node_efficiency) = hw::EfficiencyCurve(points);
    s.fields.push_back(t == 0 ? "collectives.p2p.intra_node_efficiency"
                              : "collectives.p2p.inter_node_efficiency");
    s.values += fmt::format(
        "; {} {} curve points, {:.4f} at {} to {:.4f} at {}", to_string(tier), points.size(),
        points.front().efficiency, Bytes::of(static_cast<std::int64_t>(points.front().size)),
        points.back().efficiency, Bytes::of(static_cast<std::int64_t>(points.back().size)));
    tiers.emplace_back(to_string(tier));
    FitSummary part;
    part.what = std::string(to_string(tier));
    part.fitted_rows = tier_rows[t].size();
    std::vector<const RawMeasurement*> held_out;
    for (const RawMeasurement* r : split.held_out) {
      if (r->tier == tier) held_out.push_back(r);
    }
    part.values = fmt::format("{} curve points", points.size());
    s.parts.push_back(std::move(part));
    held_out_by_tier[t] = std::move(held_out);
  }
  for (std::size_t t = 0, i = 0; t < 2; ++t) {
    if (tier_rows[t].empty()) continue;
    s.parts[i++].held_out = held_out_errors(
        held_out_by_tier[t],
        [&profile](const RawMeasurement& r) { return predict_p2p_row(r, profile).seconds(); });
  }
  s.fitted_rows = split.fit.size();
  s.held_out = held_out_errors(split.held_out, [&profile](const RawMeasurement& r) {
    return predict_p2p_row(r, profile).seconds();
  });
  s.ranges = fmt::format("send_recv {}; sizes {} to {}", fmt::join(tiers, ", "), Bytes::of(size_lo),
                         Bytes::of(size_hi));
  return s;
}

}  // namespace trainsim::calibrate
