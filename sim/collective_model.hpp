#pragma once
// Collectives as flows on the topology (parallelism-reference §11): NCCL ring algorithms in
// which every member sends its per-link volume to the next member of a ring, split over
// parallel rings (NCCL channels) so that a multi-node group uses several NICs per node; an α
// term per algorithm step by the tier it crosses; and NCCL's achieved fraction of link
// bandwidth as wire demand: each flow carries bytes / efficiency and runs at link speed, so
// collectives sharing a link never get more useful bandwidth together than the efficiency
// allows. Timing of concurrent flows is the FlowNetwork's job.

#include <cstdint>
#include <span>
#include <vector>

#include "models/program.hpp"
#include "sim/hardware_profile.hpp"
#include "sim/topology.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

/// One transfer of a collective, from GPU to GPU.
struct FlowSpec {
  std::int32_t src = 0;
  std::int32_t dst = 0;
  double bytes = 0.0;
};

/// Algorithm steps that pay a latency: all-reduce 2(n-1); all-gather, reduce-scatter,
/// all-to-all, broadcast and reduce (chain hops) n-1; zero for n <= 1.
std::int64_t ring_steps(program::CollectiveKind kind, std::int64_t n);

/// The ring's: base_latency + (steps - inter) x node.latency + inter x network.latency, with
/// inter = 2(nodes-1) for all-reduce and nodes-1 otherwise (NCCL's ring latency model,
/// §11.3). An all-reduce over several nodes takes the lower of that and tree_latency: NCCL's
/// tuner picks the algorithm its model predicts faster, and its tree and ring reach about the
/// same bus bandwidth (both ~busBw/2 of algorithm bandwidth at scale), so the latency decides
/// wherever latency matters; the bandwidth part stays the ring's flows either way. Zero for a
/// group of one.
Time collective_latency(program::CollectiveKind kind, std::int64_t members, std::int64_t nodes,
                        const hw::HardwareProfile& hw);

/// NCCL's tree all-reduce latency: base_latency plus, up and down, a chain through the
/// members of a node and a binary tree of depth ceil(log2(nodes)) across nodes (fidelity-
/// data.md §4.1: trees reach peak much sooner at scale; rings' latency grows with the nodes).
Time tree_latency(std::int64_t members, std::int64_t nodes, const hw::HardwareProfile& hw);

/// The point-to-point base latency (collectives.p2p.base_latency, else
/// collectives.base_latency) + one hop of the tier crossed.
Time p2p_latency(bool inter_node, const hw::HardwareProfile& hw);

/// NCCL's achieved fraction of link bandwidth for an `size`-byte collective over
/// `group_size` GPUs on a tier (CollectiveSpec::efficiency_curve picks the curve).
double comm_efficiency(Bytes size, bool inter_node, std::int64_t group_size,
                       const hw::HardwareProfile& hw);

/// The same for a `size`-byte send/receive: the tier's collectives.p2p curve, else the tier's
/// collective curve for every group size (what transfers used before p2p curves existed).
double p2p_efficiency(Bytes size, bool inter_node, const hw::HardwareProfile& hw);

/// Appends the flows of one collective over `gpus` (ring order) to `out`, with `size` in
/// bytes: all-reduce sends 2(n-1)/n·S to the next member, all-gather and reduce-scatter
/// (n-1)/n·S, broadcast a pipelined chain of S from the first member (reduce: the chain
/// towards it), all-to-all S/n to every other member. Nothing for a group of one or a
/// non-positive size.
void append_collective_flows(program::CollectiveKind kind, double size,
                             std::span<const std::int32_t> gpus, std::vector<FlowSpec>& out);

/// The parallel rings (NCCL channels) of a collective: `channels` ring orders of the group's
/// `members` GPUs, concatenated, each starting with the group's first member.
struct CollectiveRings {
  std::int32_t channels = 1;
  std::int32_t members = 0;
  std::vector<std::int32_t> order;  ///< channels x members GPUs

  /// Ring order of channel `c` (0 <= c < channels).
  std::span<const std::int32_t> ring(std::int32_t c) const {
    return std::span<const std::int32_t>(order).subspan(static_cast<std::size_t>(c * members),
                                                        static_cast<std::size_t>(members));
  }
};

/// NCCL's multi-ring layout (one ring per channel, each leaving a node through a different
/// NIC). A group spanning several nodes with m >= 2 members in every node gets
/// k = min(nics_per_node, m) rings: members are grouped by node (nodes in order of first
/// appearance, members in group order), and in ring c each node's members are rotated so
/// that the member at position c of its node sends to the next node, while the member at
/// position c+1 receives from the previous one; GPU i of a node uses NIC i mod
/// nics_per_node, so for a full node ring c crosses on NIC c. Any other group gets one ring
/// in the group's order. A group with one member per node therefore uses that GPU's own NIC
/// only: NCCL's PXN, which can route through a peer's NIC over NVLink, is not modelled.
CollectiveRings collective_rings(std::span<const std::int32_t> gpus, const Topology& topology,
                                 std::int64_t nics_per_node);

/// Appends the flows of a collective over its rings: each channel carries size / channels
/// bytes (append_collective_flows per ring), except all-to-all, which is pairwise rather
/// than a ring and sends directly from every member (over the first ring's members, all
/// of them, with the full size).
void append_collective_flows(program::CollectiveKind kind, Bytes size, const CollectiveRings& rings,
                             std::vector<FlowSpec>& out);

/// Number of distinct nodes the GPUs sit in.
std::int64_t nodes_spanned(std::span<const std::int32_t> gpus, const Topology& topology);

/// Time of one collective alone on an idle cluster: its rings' flows, each of wire bytes /
/// efficiency, shared max-min fairly among themselves at link speed, plus latency. For
/// reports and tests; the replay times collectives itself.
Time estimate_collective(program::CollectiveKind kind, Bytes size,
                         std::span<const std::int32_t> gpus, Topology& topology,
                         const hw::HardwareProfile& hw);

/// Time of one send/receive of `size` bytes from `src` to `dst` alone on an idle cluster: one
/// flow of size / p2p_efficiency at link speed, plus p2p_latency. For the fit and tests; the
/// replay times transfers itself.
Time estimate_p2p(Bytes size, std::int32_t src, std::int32_t dst, Topology& topology,
                  const hw::HardwareProfile& hw);

}  // namespace trainsim::sim
