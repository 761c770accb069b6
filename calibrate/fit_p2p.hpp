#pragma once
// Point-to-point α and efficiency curve per tier from send_recv rows, through the simulator's
// own transfer model (sim::estimate_p2p: one flow at link speed over the route, plus the p2p
// latency): the same split as the collectives' fit, base latency at the smallest size and
// one curve point per measured size, into collectives.p2p.

#include <vector>

#include "calibrate/fit_summary.hpp"
#include "calibrate/raw_measurements.hpp"
#include "sim/hardware_profile.hpp"

namespace trainsim::calibrate {

/// Fits collectives.p2p.base_latency (from the intra_node rows when there are any, else the
/// inter_node ones: NCCL's base latency is one figure) and the p2p curve of each tier with
/// rows into `profile`. An intra_node row sends from GPU 0 to GPU 1, an inter_node row from
/// GPU 0 to the first GPU of the next node (GPU node.gpus). Throws Infeasible when a tier has
/// no size where bandwidth time is at least kMinBandwidthShare of the measured time.
FitSummary fit_p2p(const std::vector<const RawMeasurement*>& rows, hw::HardwareProfile& profile);

/// The simulator's time for a send_recv row on `profile`, alone on an idle cluster.
Time predict_p2p_row(const RawMeasurement& row, const hw::HardwareProfile& profile);

}  // namespace trainsim::calibrate
