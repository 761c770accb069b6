#pragma once
// Collectives as flows on the topology (parallelism-reference §11): NCCL ring algorithms in
// which every member sends its per-link volume to the next member of the group's ring order,
// an α term per algorithm step by the tier it crosses, and NCCL's achieved fraction of link
// bandwidth as a per-flow rate cap. Timing of concurrent flows is the FlowNetwork's job.

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

/// base_latency + (steps - inter) x node.latency + inter x network.latency, with
/// inter = 2(nodes-1) for all-reduce and nodes-1 otherwise (NCCL's ring latency model,
/// §11.3). Zero for a group of one.
Time collective_latency(program::CollectiveKind kind, std::int64_t members, std::int64_t nodes,
                        const hw::HardwareProfile& hw);

/// base_latency + one hop of the tier crossed.
Time p2p_latency(bool inter_node, const hw::HardwareProfile& hw);

/// NCCL's achieved fraction of link bandwidth for an `size`-byte operation on a tier.
double comm_efficiency(Bytes size, bool inter_node, const hw::HardwareProfile& hw);

/// Appends the flows of one collective over `gpus` (ring order) to `out`: all-reduce sends
/// 2(n-1)/n·S to the next member, all-gather and reduce-scatter (n-1)/n·S, broadcast a
/// pipelined chain of S from the first member (reduce: the chain towards it), all-to-all
/// S/n to every other member. Nothing for a group of one or a zero size.
void append_collective_flows(program::CollectiveKind kind, Bytes size,
                             std::span<const std::int32_t> gpus, std::vector<FlowSpec>& out);

/// Number of distinct nodes the GPUs sit in.
std::int64_t nodes_spanned(std::span<const std::int32_t> gpus, const Topology& topology);

/// Time of one collective alone on an idle cluster (flows shared max-min fairly among
/// themselves, plus latency). For reports and tests; the replay times collectives itself.
Time estimate_collective(program::CollectiveKind kind, Bytes size,
                         std::span<const std::int32_t> gpus, Topology& topology,
                         const hw::HardwareProfile& hw);

}  // namespace trainsim::sim
