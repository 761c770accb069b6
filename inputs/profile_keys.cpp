#include "inputs/profile_keys.hpp"

#include <algorithm>

#include "models/program.hpp"
#include "sim/hardware_profile.hpp"

namespace trainsim::inputs {

namespace {

using V = ProfileValue;

std::vector<std::string_view> memory_kernel_classes() {
  std::vector<std::string_view> names;
  for (int c = 0; c < program::kMemoryKernelClassCount; ++c)
    names.push_back(program::to_string(static_cast<program::KernelClass>(c)));
  return names;
}

std::vector<std::string_view> sync_points() {
  std::vector<std::string_view> names;
  for (int p = 0; p < program::kSyncPointCount; ++p)
    names.push_back(program::to_string(static_cast<program::SyncPoint>(p)));
  return names;
}

std::vector<std::string_view> algorithms() {
  std::vector<std::string_view> names;
  for (int a = 0; a < hw::kCollectiveAlgorithmCount; ++a)
    names.push_back(hw::to_string(static_cast<hw::CollectiveAlgorithm>(a)));
  return names;
}

const std::vector<std::string_view> kDtypes = {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8"};

std::vector<ProfileKey> build() {
  return {
      {"name", V::text, true, {}, 0, 0, "profile name (the file's stem by convention)"},
      {"description", V::text, true, {}, 0, 0, "what machine this is"},
      {"gpu", V::section, true, {}, 0, 0, "one GPU"},
      {"gpu.model", V::text, true, {}, 0, 0, "GPU model name"},
      {"gpu.peak", V::flop_rate_map, true, kDtypes, 0, 0, "dense peak per dtype (datasheet)"},
      {"gpu.sm_count", V::positive_int, true, {}, 0, 0, "streaming multiprocessors"},
      {"gpu.memory", V::bytes, true, {}, 0, 0, "HBM capacity"},
      {"gpu.memory_bandwidth", V::bandwidth, true, {}, 0, 0, "HBM peak bandwidth"},
      {"gpu.memory_efficiency",
       V::fraction,
       true,
       {},
       0,
       0,
       "share of the HBM peak a streaming kernel reaches"},
      {"gpu.kernels", V::fraction_map, false, memory_kernel_classes(), 0, 0,
       "per memory-bound kernel class: share of the HBM peak (else memory_efficiency)"},
      {"gpu.attention", V::section, false, {}, 0, 0, "fused (flash) attention kernels"},
      {"gpu.attention.efficiency", V::fraction, true, {}, 0, 0, "forward: share of the bf16 peak"},
      {"gpu.attention.backward_efficiency",
       V::fraction,
       true,
       {},
       0,
       0,
       "backward: share of the bf16 peak"},
      {"gpu.attention.fixed_time",
       V::time,
       false,
       {},
       0,
       0,
       "forward: time per call beyond the FLOPs"},
      {"gpu.attention.backward_fixed_time",
       V::time,
       false,
       {},
       0,
       0,
       "backward: time per call beyond the FLOPs"},
      {"gpu.kernel_launch", V::time, true, {}, 0, 0, "GPU-side time per kernel beyond its work"},
      {"gpu.gemm", V::section, true, {}, 0, 0, "the GEMM model (sim/compute_model.hpp)"},
      {"gpu.gemm.max_efficiency",
       V::fraction,
       true,
       {},
       0,
       0,
       "share of the peak of the best shape"},
      {"gpu.gemm.max_efficiency_by_dtype", V::fraction_map, false, kDtypes, 0, 0,
       "max_efficiency per dtype of gpu.peak"},
      {"gpu.gemm.tile",
       V::tile,
       true,
       {},
       0,
       0,
       "CTA tile [m, n] max_efficiency was measured with"},
      {"gpu.gemm.ctas_per_sm", V::positive_int, true, {}, 0, 0, "resident CTAs per SM"},
      {"gpu.gemm.size_efficiency",
       V::flops_curve,
       false,
       {},
       0,
       0,
       "{FLOPs of one GEMM: efficiency factor}"},
      {"gpu.gemm.candidate_tiles",
       V::tile_list,
       false,
       {},
       0,
       0,
       "tiles cuBLAS's heuristic chooses among (needs operand_bandwidth)"},
      {"gpu.gemm.operand_bandwidth",
       V::bandwidth,
       false,
       {},
       0,
       0,
       "L2 to SMs bandwidth feeding the tiles' operands, all SMs together"},
      {"gpu.gemm.cta_overhead_k",
       V::number,
       false,
       {},
       0,
       65536,
       "per-CTA overhead, in units of k"},
      {"gpu.gemm.max_split_k", V::positive_int, false, {}, 0, 256, "largest split-K"},
      {"node", V::section, true, {}, 0, 0, "one node"},
      {"node.gpus", V::positive_int, true, {}, 0, 0, "GPUs per node"},
      {"node.fabric", V::choice, true, {"nvswitch", "pcie"}, 0, 0, "intra-node fabric"},
      {"node.gpu_bandwidth", V::bandwidth, true, {}, 0, 0, "per GPU, per direction"},
      {"node.latency", V::time, true, {}, 0, 0, "intra-node link latency"},
      {"node.host_bridge_bandwidth",
       V::bandwidth,
       false,
       {},
       0,
       0,
       "pcie only: the host bridge every GPU-to-GPU transfer crosses"},
      {"network", V::section, true, {}, 0, 0, "the inter-node network"},
      {"network.nics_per_node", V::positive_int, true, {}, 0, 0, "NICs (rails) per node"},
      {"network.nic_bandwidth", V::bandwidth, true, {}, 0, 0, "per NIC, per direction"},
      {"network.latency", V::time, true, {}, 0, 0, "inter-node latency"},
      {"network.oversubscription", V::number, true, {}, 1, 1000, "the fabric's oversubscription"},
      {"collectives", V::section, true, {}, 0, 0, "NCCL's collectives"},
      {"collectives.base_latency", V::time, true, {}, 0, 0, "fixed cost of one collective"},
      {"collectives.intra_node_efficiency",
       V::bytes_curve,
       true,
       {},
       0,
       0,
       "{message size: share of the link bandwidth} inside a node"},
      {"collectives.inter_node_efficiency",
       V::bytes_curve,
       true,
       {},
       0,
       0,
       "{message size: share of the link bandwidth} across nodes"},
      {"collectives.intra_node_efficiency_by_group_size",
       V::curves_by_size,
       false,
       {},
       0,
       0,
       "{group size 2..node.gpus: curve}"},
      {"collectives.inter_node_efficiency_by_group_size",
       V::curves_by_size,
       false,
       {},
       0,
       0,
       "{group size > node.gpus: curve}"},
      {"collectives.algorithms", V::choice_list, false, algorithms(), 0, 0,
       "NCCL_ALGO: the algorithms allowed (must hold ring)"},
      {"collectives.p2p", V::section, false, {}, 0, 0, "sends and receives, where they differ"},
      {"collectives.p2p.base_latency", V::time, false, {}, 0, 0, "fixed cost of one transfer"},
      {"collectives.p2p.intra_node_efficiency", V::bytes_curve, false, {}, 0, 0, "inside a node"},
      {"collectives.p2p.inter_node_efficiency", V::bytes_curve, false, {}, 0, 0, "across nodes"},
      {"host", V::section, false, {}, 0, 0, "the framework's CPU thread per rank"},
      {"host.framework", V::text, true, {}, 0, 0, "framework and version the figures are for"},
      {"host.dispatch", V::section, true, {}, 0, 0, "CPU time to issue one op, per kind"},
      {"host.dispatch.gemm", V::time, true, {}, 0, 0, "a GEMM"},
      {"host.dispatch.kernel", V::time, true, {}, 0, 0, "any other kernel"},
      {"host.dispatch.collective", V::time, true, {}, 0, 0, "a collective"},
      {"host.dispatch.p2p", V::time, true, {}, 0, 0, "a send or receive"},
      {"host.sync_latency",
       V::time,
       true,
       {},
       0,
       0,
       "from the GPU reaching a sync point to the host issuing again"},
      {"host.sync_points", V::choice_list, true, sync_points(), 0, 0, "where the host waits"},
      {"host.device_max_connections",
       V::positive_int,
       false,
       {},
       0,
       32,
       "CUDA_DEVICE_MAX_CONNECTIONS (1 to 32)"},
      {"interference", V::section, true, {}, 0, 0, "compute and communication slowing each other"},
      {"interference.compute_slowdown_during_comm",
       V::number,
       true,
       {},
       0,
       1,
       "compute slowed while NCCL runs"},
      {"interference.comm_slowdown_during_compute",
       V::number,
       true,
       {},
       0,
       3,
       "NVLink/PCIe transfers slowed while compute runs"},
      {"reliability", V::section, false, {}, 0, 0, "interruptions, restarts and checkpoints"},
      {"reliability.interruptions",
       V::interruption_rate_map,
       true,
       {},
       0,
       0,
       "unplanned interruptions per GPU, by cause (names: lower case, digits, _)"},
      {"reliability.planned_interruptions",
       V::interruption_rate,
       true,
       {},
       0,
       0,
       "planned stops per GPU: a checkpoint and a restart, no lost work"},
      {"reliability.detect", V::time, true, {}, 0, 0, "from a fault to the job knowing it"},
      {"reliability.restart",
       V::time,
       true,
       {},
       0,
       0,
       "from knowing it to training again, less the checkpoint's load"},
      {"reliability.checkpoint", V::section, true, {}, 0, 0, "where checkpoints go"},
      {"reliability.checkpoint.device_to_host", V::bandwidth, true, {}, 0, 0, "per GPU"},
      {"reliability.checkpoint.node_write", V::bandwidth, true, {}, 0, 0, "per node, to storage"},
      {"reliability.checkpoint.node_read", V::bandwidth, true, {}, 0, 0, "per node, from storage"},
      {"reliability.checkpoint.filesystem_write",
       V::bandwidth,
       true,
       {},
       0,
       0,
       "the whole file system, sustained"},
      {"reliability.checkpoint.filesystem_read",
       V::bandwidth,
       true,
       {},
       0,
       0,
       "the whole file system, sustained"},
      {"reliability.checkpoint.mode",
       V::choice,
       true,
       {"sync", "async"},
       0,
       0,
       "async: training waits only for the copy to host memory"},
      {"provenance",
       V::text_map,
       true,
       {},
       0,
       0,
       "{field path: source} for every numeric field present"},
  };
}

}  // namespace

const std::vector<ProfileKey>& profile_keys() {
  static const std::vector<ProfileKey> keys = build();
  return keys;
}

std::vector<std::string> profile_keys_under(std::string_view section) {
  std::vector<std::string> out;
  const std::string lead = section.empty() ? "" : std::string(section) + ".";
  for (const ProfileKey& k : profile_keys()) {
    if (!k.path.starts_with(lead)) continue;
    const std::string_view rest = k.path.substr(lead.size());
    if (rest.find('.') == std::string_view::npos) out.emplace_back(rest);
  }
  return out;
}

}  // namespace trainsim::inputs
