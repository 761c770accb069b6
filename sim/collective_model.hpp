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
#include <string_view>
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

using hw::CollectiveAlgorithm;

/// The ring's latency: base_latency + (steps - inter) x node.latency + inter x
/// network.latency, with inter = 2(nodes-1) for all-reduce and nodes-1 otherwise (NCCL's ring
/// latency model, §11.3). Zero for a group of one.
Time ring_latency(program::CollectiveKind kind, std::int64_t members, std::int64_t nodes,
                  const hw::HardwareProfile& hw);

/// NCCL's tree all-reduce latency: base_latency plus, up and down, a chain through the
/// members of a node and a binary tree of depth ceil(log2(nodes)) across nodes (fidelity-
/// data.md §4.1: trees reach peak much sooner at scale; rings' latency grows with the nodes).
Time tree_latency(std::int64_t members, std::int64_t nodes, const hw::HardwareProfile& hw);

/// The latency of `algorithm` (ring_latency or tree_latency). Zero for a group of one.
Time collective_latency(program::CollectiveKind kind, std::int64_t members, std::int64_t nodes,
                        CollectiveAlgorithm algorithm, const hw::HardwareProfile& hw);

/// The point-to-point base latency (collectives.p2p.base_latency, else
/// collectives.base_latency) + one hop of the tier crossed.
Time p2p_latency(bool inter_node, const hw::HardwareProfile& hw);

/// NCCL's achieved fraction of link bandwidth for an `size`-byte collective over
/// `group_size` GPUs on a tier (CollectiveSpec::efficiency_curve picks the curve).
double comm_efficiency(Bytes size, bool inter_node, std::int64_t group_size,
                       const hw::HardwareProfile& hw);

/// NCCL's achieved fraction of link bandwidth for the flows of one collective, by tier. A
/// multi-node collective is one pipeline: its ramp with the size (chunks in flight, protocol,
/// the latency floor) is the inter-node curve's and holds on every link of it, while the
/// links inside a node also keep their own ceiling, the intra-node curve's for the node's
/// share of the group: the flows between nodes run at the inter-node curve, those inside
/// at the lower of the two. So the chains and ring segments of a multi-node collective are
/// not credited more of an NVLink than NCCL gets from it inside one node (0.78 on DGX A100
/// against the NICs' 0.96).
struct TierEfficiency {
  double intra = 1.0;
  double inter = 1.0;
  double of(bool crosses_nodes) const { return crosses_nodes ? inter : intra; }
};
/// A group of `members` over `nodes`: inside one node the intra-node curve of the group's
/// size for both; across nodes the inter-node curve of the group's size, and inside the
/// lower of it and the intra-node curve of the members per node (rounded up).
TierEfficiency collective_efficiency(Bytes size, std::int64_t members, std::int64_t nodes,
                                     const hw::HardwareProfile& hw);

/// The same for a `size`-byte send/receive: the tier's collectives.p2p curve, else the tier's
/// collective curve for every group size (what transfers used before p2p curves existed).
double p2p_efficiency(Bytes size, bool inter_node, const hw::HardwareProfile& hw);

/// A collective of `kind`: sendrecv (every member to its neighbour) at p2p_efficiency in each
/// tier, the other kinds at collective_efficiency.
TierEfficiency collective_efficiency(program::CollectiveKind kind, Bytes size, std::int64_t members,
                                     std::int64_t nodes, const hw::HardwareProfile& hw);

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
  std::int32_t nodes = 0;           ///< nodes the group spans (nodes_spanned of its members)
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

/// NCCL's tree parent of node `rank` among `nodes` in tree `t` (0 or 1) of its double binary
/// tree, -1 for a root: tree 0 is NCCL's binary tree (ncclGetBtree: a node's parent is found
/// by flipping its lowest set bit), tree 1 the same tree mirrored (an even count) or shifted
/// by one (odd), so that the leaves of one are the inner nodes of the other and every node
/// sends and receives about the same in both together.
std::int32_t double_tree_parent(std::int32_t rank, std::int32_t nodes, int t);

/// Appends the flows of a tree all-reduce of `size` bytes over `gpus` to `out`, on as many
/// channels as the rings get (collective_rings): in channel c each node's members form a
/// chain headed by its member at position c (the one whose NIC ring c leaves through), the
/// channel's S/channels bytes going up the chain (reduce) and down again (broadcast), and
/// the heads exchange it over both trees of the double binary tree between the nodes (nodes
/// in order of first appearance), each tree carrying half, up and down. Nothing inside one
/// node, for one member, or for a non-positive size. `chain_nodes`, when not empty, holds a
/// flag per node of the topology: only the chains of flagged nodes are appended (a node
/// fold's kept nodes, whose chains stand for the others': sim/node_fold.hpp), the trees
/// between the nodes whole, every flow in its place in the full order.
void append_tree_flows(Bytes size, std::span<const std::int32_t> gpus, const Topology& topology,
                       std::int64_t nics_per_node, std::vector<FlowSpec>& out,
                       std::span<const std::uint8_t> chain_nodes = {});

/// nccl-tests' bus bandwidth factor (hardware-data.md §3.1): busbw = algbw x factor, the
/// share of the data each link carries, which makes busbw comparable across group sizes.
/// All-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n; broadcast, reduce 1.
double bus_factor(program::CollectiveKind kind, std::int64_t n);

/// Number of distinct nodes the GPUs sit in.
std::int64_t nodes_spanned(std::span<const std::int32_t> gpus, const Topology& topology);

/// All-to-all's flows: every pair inside a node directly; across nodes, as NCCL's PXN routes
/// them, all that a member sends to one other node in one flow to that node's member on its
/// own rail (the member at its position among its node's members, cyclically), in
/// n·(members per node − 1 + other nodes) flows rather than n·(n − 1): at EP 64 over 8 nodes
/// 896 instead of 4032. When every node holds as many members (a group of whole nodes, or the
/// same GPUs of each), each NIC sends and receives exactly the pairwise exchange's bytes; with
/// uneven nodes the receiving NICs' shares are approximate.
void append_all_to_all_flows(Bytes size, std::span<const std::int32_t> gpus,
                             const Topology& topology, std::vector<FlowSpec>& out);

/// The flows of `kind` over `gpus` by `algorithm` (all-to-all: append_all_to_all_flows; tree:
/// append_tree_flows with `chain_nodes`, else the rings').
void append_algorithm_flows(CollectiveAlgorithm algorithm, program::CollectiveKind kind, Bytes size,
                            std::span<const std::int32_t> gpus, const CollectiveRings& rings,
                            const Topology& topology, std::int64_t nics_per_node,
                            std::vector<FlowSpec>& out,
                            std::span<const std::uint8_t> chain_nodes = {});

/// The algorithm NCCL would run a collective with and its latency. NCCL's tuner picks, per
/// collective and size, the algorithm its cost model predicts fastest (latency + bytes /
/// bandwidth); here each candidate's time is its latency plus its most loaded link's wire
/// bytes / capacity / efficiency on an idle cluster, the lower wins (the ring on a tie).
/// Only an all-reduce over several nodes has a tree to choose (NCCL's tree runs all-reduce
/// only, and inside one node its chain never beats the ring). On two nodes the tree moves
/// half what the ring does through each NIC, so large all-reduces there reach a bus
/// bandwidth above the NICs' (fidelity-data.md §4.1); at scale both move about 2S per node
/// and the tree's logarithmic latency decides.
struct CollectiveChoice {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  Time latency;
};
/// `rings`: collective_rings of `gpus` (the nodes they span are read from it).
CollectiveChoice choose_algorithm(program::CollectiveKind kind, Bytes size,
                                  std::span<const std::int32_t> gpus, const CollectiveRings& rings,
                                  Topology& topology, const hw::HardwareProfile& hw);

/// The parts of one collective alone on an idle cluster: the chosen algorithm, its latency
/// and the time its flows take (wire bytes / efficiency shared max-min fairly at link speed).
struct CollectiveEstimate {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  Time latency;
  Time transfer;
  Time total() const { return latency + transfer; }
};
CollectiveEstimate estimate_collective_parts(program::CollectiveKind kind, Bytes size,
                                             std::span<const std::int32_t> gpus, Topology& topology,
                                             const hw::HardwareProfile& hw);

/// Time of one collective alone on an idle cluster: estimate_collective_parts' total. For
/// reports, the calibrator and tests; the replay times collectives itself (the same choice).
Time estimate_collective(program::CollectiveKind kind, Bytes size,
                         std::span<const std::int32_t> gpus, Topology& topology,
                         const hw::HardwareProfile& hw);

/// Time of one send/receive of `size` bytes from `src` to `dst` alone on an idle cluster: one
/// flow of size / p2p_efficiency at link speed, plus p2p_latency. For the fit and tests; the
/// replay times transfers itself.
Time estimate_p2p(Bytes size, std::int32_t src, std::int32_t dst, Topology& topology,
                  const hw::HardwareProfile& hw);

}  // namespace trainsim::sim
