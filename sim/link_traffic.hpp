#pragma once
// The bytes each link of the cluster carries when a Program's communication runs once: every
// collective and send its recorded ranks issue, with the images a representative replay
// starts for the ranks they stand for, split into flows and routed as the replay splits and
// routes them (NCCL's algorithm by size, the group's rings, the topology's routes), in raw
// bytes, before NCCL's efficiency (which only adds wire bytes). No replay moves a link's bytes
// faster than the link's capacity, so the busiest link's bytes / capacity is a floor on the
// iteration: what `plan` bounds layouts by before estimating them (analysis/traffic_floor).
//
// Cheap where a replay is not (a ZeRO-3 group of 16 384 GPUs starts ~10^5 flows a call, and
// the replay refills them at every event): for one algorithm a collective's flows are linear
// in its size, so a group's calls are summed per (kind, algorithm) and split into flows once;
// a channel's sends likewise. Over many interchangeable nodes the tally is folded as the
// replay is (sim/node_fold.hpp): a launch's flows inside nodes and across, each part that is
// symmetric routed from one node per run, the other on its own links.

#include <vector>

#include "models/program.hpp"
#include "sim/hardware_profile.hpp"
#include "sim/topology.hpp"

namespace trainsim::sim {

class ReplayWorld;

struct LinkTraffic {
  std::vector<double> bytes;       ///< per LinkId of the Program's topology
  std::vector<double> capacities;  ///< bytes/s, per LinkId (nominal: the replay never raises them)
};

/// The traffic of one run of `program`'s communication on `topology`, `hw`'s cluster of the
/// Program's world size (built once, Programs of one size share it; the tally itself routes
/// each flow from the structure, `Topology::route_links`, not through the route cache).
/// Throws InvalidProgram as the replay's index does (it times no compute, so a GEMM whose
/// dtype the profile has no peak for is no error here), and std::invalid_argument when the
/// topology's GPU count is not the Program's world size. `fold_nodes` false tallies every flow
/// (the same bytes: only to check that sameness).
LinkTraffic link_traffic(const program::Program& program, const hw::HardwareProfile& hw,
                         Topology& topology, bool fold_nodes = true);
/// The same on `world`'s profile and topology, its groups indexed once for Programs alike (a
/// layout's reduced runs: sim/replay_world.hpp); the world's size is checked as
/// index_program(program, world) checks it.
LinkTraffic link_traffic(const program::Program& program, ReplayWorld& world,
                         bool fold_nodes = true);

}  // namespace trainsim::sim
