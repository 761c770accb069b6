#pragma once
// Collective α and efficiency curve per tier, through the simulator's own collective model
// (sim::estimate_collective: ring flows on the topology, latency per step): a row's modelled
// time is base_latency + hop latencies + T1 / efficiency(size), where T1 is the flows' time at
// full link speed. base_latency is read at the smallest size measured (where T1 vanishes), and
// each measured size becomes one point of the tier's curve, the form the profile holds.

#include <vector>

#include "calibrate/fit_summary.hpp"
#include "calibrate/raw_measurements.hpp"
#include "sim/hardware_profile.hpp"

namespace trainsim::calibrate {

/// Curve points are kept only for sizes where bandwidth time is at least this share of the
/// measured time; below, the efficiency is lost in the latency and the curve clamps.
inline constexpr double kMinBandwidthShare = 0.1;

/// A row's modelled time split into the parts that do not depend on the fitted figures, in
/// seconds: hop latencies and the flows' time at full link speed (T1).
struct LinkTimes {
  double hops = 0.0;
  double full_speed = 0.0;
};

/// α where the bandwidth term vanishes: the median of t − hops − T1 over the rows at the
/// smallest size measured (at least 0). `rows` and `parts` run in parallel.
double latency_at_smallest(const std::vector<const RawMeasurement*>& rows,
                           const std::vector<LinkTimes>& parts);

/// One curve point per measured size: the median of T1 / (t − α − hops) over its rows, capped
/// at 1, for sizes where bandwidth time is at least kMinBandwidthShare of t. Sorted by size;
/// empty when no size qualifies.
std::vector<hw::EfficiencyCurve::Point> efficiency_points(
    const std::vector<const RawMeasurement*>& rows, const std::vector<LinkTimes>& parts,
    double alpha);

/// Fits collectives.base_latency (intra_node rows only: the profile holds one α, and NCCL's
/// base latency is the intra-node figure) and the tier's efficiency curve into `profile` from
/// collective rows of one tier. intra_node groups must fit in one node; inter_node groups
/// fill ceil(group_size / node.gpus) nodes in rank order. Throws Infeasible with fewer than
/// two distinct sizes or a group that does not match its tier. When the rows cover more than
/// one group size, each size also gets its own curve (the tier's
/// *_efficiency_by_group_size), fitted from its rows alone with the same α. send_recv rows
/// are fitted by fit_p2p; callers leave them out.
FitSummary fit_collectives(const std::vector<const RawMeasurement*>& rows, Tier tier,
                           hw::HardwareProfile& profile);

/// The simulator's time for a collective row on `profile`, alone on an idle cluster.
Time predict_collective_row(const RawMeasurement& row, const hw::HardwareProfile& profile);

}  // namespace trainsim::calibrate
