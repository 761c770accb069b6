#pragma once
// A modelled GPU system: the GPU, the node, the network and the collective behaviour, as
// loaded from hwprofiles/*.yaml by inputs/hwprofile_loader. Values only; the cost models in
// sim/ read it. Every figure has its source (or the word "guess") in `provenance`.

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/dtype.hpp"
#include "models/program.hpp"
#include "sim/reliability.hpp"
#include "units/units.hpp"

namespace trainsim::hw {

/// Efficiency (0, 1] as a function of a positive size (bytes or FLOPs), piecewise linear in
/// log2(size) between the points and clamped beyond them.
class EfficiencyCurve {
 public:
  struct Point {
    double size = 0.0;
    double efficiency = 1.0;
  };
  EfficiencyCurve() = default;
  /// Points must have strictly increasing sizes (the loader checks and sorts).
  explicit EfficiencyCurve(std::vector<Point> points);
  static EfficiencyCurve constant(double efficiency) {
    return EfficiencyCurve({{1.0, efficiency}});
  }

  /// Log-linear between points, the first point's below it, the last point's beyond it.
  double at(double size) const;
  const std::vector<Point>& points() const { return points_; }
  bool empty() const { return points_.empty(); }

 private:
  std::vector<Point> points_;
};

/// A CTA tile: the m x n block of C one thread block computes (fidelity-data.md §3.1).
struct GemmTile {
  std::int64_t m = 128;
  std::int64_t n = 128;
  friend bool operator==(const GemmTile&, const GemmTile&) = default;
};

/// GEMM time = FLOPs / (peak · efficiency), floored by HBM traffic (parallelism-reference §12).
/// Without candidate tiles: one CTA tile for every shape (tile and wave quantization over it).
/// With them, cuBLAS's heuristic is modelled (sim/compute_model.hpp): per shape the fastest
/// of the candidate tiles, each split k ways or not, each tile's rate capped by the L2
/// bandwidth that feeds its operands, and every CTA paying a prologue/epilogue.
struct GemmModel {
  double max_efficiency = 0.8;  ///< fraction of peak that large, well-shaped GEMMs reach
  /// Per-dtype figures replacing max_efficiency for their dtype (cuBLAS reaches different
  /// fractions of each dtype's peak); dtypes not listed use max_efficiency.
  std::map<DType, double> max_efficiency_by_dtype;
  std::int64_t tile_m = 128;  ///< CTA tile for tile and wave quantization
  std::int64_t tile_n = 128;
  std::int64_t ctas_per_sm = 1;
  EfficiencyCurve size_efficiency;  ///< extra ramp for small GEMMs, x = FLOPs of one GEMM
  /// The tiles cuBLAS chooses among (tile_m x tile_n is one of them: the tile max_efficiency
  /// was measured with). Empty: the single tile above, as before these fields existed.
  std::vector<GemmTile> candidate_tiles;
  /// All SMs together: the bandwidth at which L2 feeds the CTA tiles' A and B operands. A
  /// tile of m x n moves (m + n)·k elements for 2·m·n·k FLOPs, so its rate is at most this
  /// bandwidth x 2mn / ((m + n)·element bytes): smaller tiles reuse each load less.
  /// Set whenever candidate_tiles is.
  Bandwidth operand_bandwidth;
  /// Each CTA's prologue (filling the operand pipeline) and epilogue (writing its tile of C)
  /// in units of k: a CTA over depth k takes as long as k + cta_overhead_k steps.
  double cta_overhead_k = 0.0;
  /// The largest split-K factor (1: no split-K); with candidate_tiles only.
  std::int64_t max_split_k = 1;

  /// max_efficiency_by_dtype's figure for `dtype`, else max_efficiency.
  double max_efficiency_for(DType dtype) const;
};

/// Fused attention kernels (FlashAttention 2/3, cuDNN's): compute-bound, each pass at a share
/// of the GPU's 16-bit tensor peak (the FLOPs the kernel executes: causal tiles skipped, the
/// backward's recomputed scores included).
struct AttentionSpec {
  double efficiency = 0.0;           ///< forward
  double backward_efficiency = 0.0;  ///< backward
  /// Per call, beyond the FLOPs at the efficiency: the pipeline's fill and drain and the
  /// causal last wave, which a short call cannot hide (cuDNN's forward on an H100: 0.43 of
  /// peak at 34 GFLOP, 0.62 at 550; calibrate/measurements/2026-11-27-h100/). Zero unless
  /// fitted (`trainsim fit` on attention rows).
  Time fixed_time;
  Time backward_fixed_time;
};

struct GpuSpec {
  std::string model;
  std::map<DType, FlopRate> peak;  ///< dense tensor-core (or vector where none) peak per dtype
  std::int64_t sm_count = 1;
  Bytes memory;                    ///< HBM capacity
  Bandwidth memory_bandwidth;      ///< HBM peak
  double memory_efficiency = 0.8;  ///< fraction of peak reached by streaming kernels
  /// Per kernel class (program::KernelClass), the fraction of peak its kernels reach; classes
  /// not listed use memory_efficiency (fidelity-data.md §2.1: a fused LayerNorm and a plain
  /// copy reach different shares of HBM bandwidth).
  std::map<program::KernelClass, double> kernel_efficiency;
  /// Fused attention; nullopt where the GPU runs none (FlashAttention 2 needs Ampere or newer).
  std::optional<AttentionSpec> attention;
  Time kernel_launch;  ///< per-kernel overhead on the stream
  GemmModel gemm;

  /// kernel_efficiency's figure for `kernel_class`, else memory_efficiency.
  double memory_efficiency_for(program::KernelClass kernel_class) const;
};

enum class FabricKind : std::uint8_t { nvswitch, pcie };

struct NodeSpec {
  std::int64_t gpus = 1;
  FabricKind fabric = FabricKind::nvswitch;
  Bandwidth gpu_bandwidth;  ///< per GPU, per direction, into the fabric
  Time latency;             ///< per hop inside the node
  /// PCIe only: the host bridge every GPU-to-GPU transfer crosses (shared, per direction).
  std::optional<Bandwidth> host_bridge_bandwidth;
};

struct NetworkSpec {
  std::int64_t nics_per_node = 1;
  Bandwidth nic_bandwidth;        ///< per NIC, per direction
  Time latency;                   ///< per hop between nodes
  double oversubscription = 1.0;  ///< fat-tree core: node uplinks / core capacity (>= 1)
};

/// Point-to-point transfers (pipeline sends and receives) where they were measured apart from
/// the collectives; each part is optional and, when absent, transfers use the collectives'.
struct P2pSpec {
  std::optional<Time> base_latency;       ///< absent: collectives.base_latency
  EfficiencyCurve intra_node_efficiency;  ///< empty: the tier's collective curve
  EfficiencyCurve inter_node_efficiency;
};

/// NCCL's algorithms the model times: rings for every kind; for an all-reduce over several
/// nodes also the tree (a chain through each node's members, NCCL's double binary tree
/// between the nodes).
enum class CollectiveAlgorithm : std::uint8_t { ring, tree };
inline constexpr int kCollectiveAlgorithmCount = 2;
std::string_view to_string(CollectiveAlgorithm algorithm);

/// Collective behaviour beyond the links: latency per algorithm step and the fraction of
/// link bandwidth NCCL reaches as a function of message size (bytes), per tier.
struct CollectiveSpec {
  Time base_latency;
  /// The algorithms NCCL may choose from (NCCL_ALGO); the ring always (every kind has one).
  std::array<bool, kCollectiveAlgorithmCount> algorithms{true, true};
  EfficiencyCurve intra_node_efficiency;  ///< every group size without a curve of its own
  EfficiencyCurve inter_node_efficiency;
  /// Curves measured at particular group sizes. A curve applies to groups of its size and
  /// larger, up to the next listed size (the nearest smaller measured size rules); groups
  /// smaller than every listed size use the tier's curve above.
  std::map<std::int64_t, EfficiencyCurve> intra_node_efficiency_by_group_size;
  std::map<std::int64_t, EfficiencyCurve> inter_node_efficiency_by_group_size;
  P2pSpec p2p;

  bool allows(CollectiveAlgorithm a) const { return algorithms[static_cast<std::size_t>(a)]; }
  /// The curve a collective over `group_size` GPUs uses on its tier (rule above).
  const EfficiencyCurve& efficiency_curve(bool inter_node, std::int64_t group_size) const;
};

/// The CPU thread that issues one rank's ops (fidelity-data.md §1): a framework in eager mode
/// spends CPU time on every op (Python, the dispatcher, autograd, the launch) and a GPU stream
/// cannot start an op before the host issued it; at some points the host waits for the GPU,
/// which drains its run-ahead. Absent from a profile: ops are issued at time zero.
struct HostSpec {
  std::string framework;  ///< what the figures describe ("Megatron-LM 2022, PyTorch eager")
  /// CPU time to issue one op of each kind (memory ops cost nothing: the caching allocator).
  Time gemm;
  Time kernel;
  Time collective;
  Time p2p;  ///< one send or receive
  /// From the GPU reaching a synchronisation point to the host issuing its next op (the
  /// wake-up, the .item() copy and its return).
  Time sync_latency;
  /// The SyncPoints (program::SyncPoint) where this framework's host waits.
  std::array<bool, program::kSyncPointCount> sync_points{};
  /// CUDA_DEVICE_MAX_CONNECTIONS: the hardware work queues the rank's streams share. With one
  /// (Megatron sets it for sequence parallelism and its asynchronous TP all-reduce), the GPU
  /// starts kernels, collectives and transfers of all streams in the order the host issued
  /// them, and one waiting for an event holds back everything issued after it
  /// (fidelity-data.md §1.3). CUDA's default (8) leaves the streams independent.
  std::int64_t device_max_connections = 8;

  bool waits_at(program::SyncPoint point) const {
    return sync_points[static_cast<std::size_t>(point)];
  }
};

struct HardwareProfile {
  std::string name;
  std::string description;
  std::filesystem::path file;
  GpuSpec gpu;
  NodeSpec node;
  NetworkSpec network;
  CollectiveSpec collectives;
  std::optional<HostSpec> host;
  /// Interruptions, restarts and checkpoints (goodput); absent: a failure-free machine.
  std::optional<ReliabilitySpec> reliability;
  /// Compute kernels run this much slower while a collective shares the SMs (0 = no effect).
  double compute_slowdown_during_comm = 0.0;
  /// Transfers inside a node move this much slower while their sending GPU runs a compute
  /// kernel (0 = no effect): NCCL drives NVLink/PCIe peer transfers with SM loads and stores
  /// whose memory latency rises under a concurrent kernel's traffic, while inter-node
  /// transfers are paced by the NIC's DMA engine and are left alone.
  double comm_slowdown_during_compute = 0.0;
  /// Field path ("gpu.memory_bandwidth") -> where the figure comes from, or "guess: why".
  std::map<std::string, std::string> provenance;

  /// Fields whose provenance starts with "guess".
  std::vector<std::string> guessed_fields() const;
  /// Peak FLOP rate for `dtype`; throws Infeasible if the GPU has none for it.
  FlopRate peak(DType dtype) const;
  /// A copy whose NICs move `nic_bandwidth` per direction, everything else unchanged: the
  /// what-if of a slower or faster inter-node network (bandwidth sweeps). The copy's
  /// provenance says the figure was overridden. Throws std::invalid_argument unless positive.
  HardwareProfile with_nic_bandwidth(Bandwidth nic_bandwidth) const;
};

}  // namespace trainsim::hw
