#pragma once
// The Program: what the executor asked each rank's GPU to do during one training iteration,
// recorded by the meta backend and replayed by the simulator. This is the only description
// of a schedule that the simulator sees, so it carries everything timing and memory need:
// op kinds with shapes, FLOPs and bytes; streams; cross-stream dependencies; communicator
// groups as explicit rank lists; allocations and frees.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "models/dtype.hpp"
#include "units/units.hpp"

namespace trainsim::program {

using Rank = std::int32_t;
using OpIndex = std::int32_t;  ///< index into one rank's op list
using GroupId = std::int32_t;
using BufferId = std::int64_t;
using NameId = std::int32_t;

/// Where an op is queued on its GPU. Ops of one stream run in program order; NCCL puts
/// each communicator class on its own stream (parallelism-reference §13). `tp` carries 1D
/// tensor parallelism and a 2D/2.5D grid's row communicator; `tp_column` the grid's column
/// communicator, a process group of its own in Optimus and ColossalAI, so row and column
/// broadcasts and reductions overlap instead of queueing behind each other. A 3D cube's five
/// communicators (ColossalAI's parallel_3d process groups) each have one too: the input group
/// uses `tp`, the weight, output, input×weight and output×weight groups the last four, so a
/// Linear3D's input and weight all-gathers run concurrently and its backward reduce-scatters
/// do not hold up the next all-gather of another group (stream_of in models/backend.hpp).
/// Pipeline transfers use two: sends on `pp_send`, receives on `pp_recv`, so a receive the
/// next pass needs never queues behind a send waiting for a busy peer (Megatron issues the
/// transfers around a pass as one batch_isend_irecv, an NCCL group whose sends and receives
/// progress concurrently; PyTorch's pipelining runtime posts receives asynchronously). Each
/// side still runs in issue order, and sends match receives per (sender, receiver) channel in
/// issue order, as NCCL matches a peer pair's point-to-point operations.
/// `host` is no GPU stream: it holds the host's synchronisations (HostSync), where the CPU
/// thread that issues a rank's ops waits for its GPU (see HostSync). Context parallelism's ring
/// passes keys and values (and in the backward their gradients) on `cp_send` and `cp_recv`,
/// for the pipeline's reason: every member sends and receives at once (a ring on one stream
/// would deadlock, each send waiting for a receive queued behind its peer's send).
enum class Stream : std::uint8_t {
  compute,
  tp,
  dp,
  pp_send,
  pp_recv,
  tp_column,
  tp_weight,
  tp_output,
  tp_input_weight,
  tp_output_weight,
  host,
  cp_send,
  cp_recv
};
inline constexpr int kStreamCount = 13;

enum class Phase : std::uint8_t { forward, backward, recompute, optimizer };

/// What a group is for (the breakdown's exposed communication is per kind): tensor
/// parallelism, the gradient (data-parallel) reduction, pipeline transfers, the tied word
/// embedding's gradient sum between the first and last stage, and the optimizer step's scalar
/// all-reduces over the model-parallel group (CommGroup::model: gradient norm, fp16 overflow
/// flag; a rank waits there for every stage to finish its backward passes, which counts here),
/// and context parallelism's ring transfers (no group: sends on the cp streams), and a MoE
/// layer's token all-to-all over its expert-parallel group.
enum class GroupKind : std::uint8_t { tp, dp, pp, embedding, optimizer, cp, ep };
inline constexpr int kGroupKindCount = 7;

enum class CollectiveKind : std::uint8_t {
  all_reduce,
  all_gather,
  reduce_scatter,
  broadcast,
  reduce,
  all_to_all,
  /// nccl-tests' sendrecv: every member sends its buffer to the next in group order and
  /// receives the previous one's (one step of a ring exchange; size: the buffer).
  sendrecv
};

/// What a memory-bound kernel does. Kernels of one class move their bytes at one achieved
/// fraction of HBM bandwidth (the profile's gpu.kernels): a fused LayerNorm, a softmax over
/// attention rows, an element-wise add and a multi-tensor optimizer kernel reach different
/// shares of peak (fidelity-data.md §2.1).
enum class KernelClass : std::uint8_t {
  elementwise,          ///< bias, GeLU, residual adds, accumulation, casts: one streaming pass
  dropout,              ///< dropout and bias-dropout-add forward (random numbers, a byte mask);
                        ///< their backward is a masked scale: elementwise
  layer_norm,           ///< a fused LayerNorm forward kernel (row statistics, then normalise);
                        ///< the split LayerNorm of 2D/2.5D/3D is reductions and elementwise
  layer_norm_backward,  ///< a fused LayerNorm backward (dx and the dgamma/dbeta reductions)
  softmax,              ///< the attention's scale-mask-softmax forward
  softmax_backward,     ///< its backward
  reduction,            ///< column sums (bias gradients), row maxima and other reductions
  embedding,            ///< embedding lookups (gathers) and position-embedding adds
  embedding_backward,   ///< scatter-adds into the embedding tables' gradients
  cross_entropy,        ///< the vocabulary-parallel cross entropy's passes over the logits
  optimizer,            ///< multi-tensor optimizer kernels (Adam, norms, scaling, copies)
  memset,               ///< zeroing buffers (writes only)
  attention,            ///< a fused attention kernel (FlashAttention, cuDNN): tensor-core bound,
                        ///< timed at the profile's gpu.attention share of the 16-bit peak
  attention_backward    ///< its backward (recomputes the scores)
};
inline constexpr int kKernelClassCount = 14;
/// The classes before `attention` stream memory: their time is bytes at a share of HBM
/// bandwidth (gpu.kernels); the attention classes are compute-bound (gpu.attention).
inline constexpr int kMemoryKernelClassCount = 12;
constexpr bool memory_bound(KernelClass c) {
  return static_cast<int>(c) < kMemoryKernelClassCount;
}

/// Where the CPU thread that issues a rank's ops waits for its GPU (fidelity-data.md §1.4);
/// whether a framework really waits at each is the hardware profile's `host.sync_points`.
enum class SyncPoint : std::uint8_t {
  found_inf,  ///< fp16 loss scaling: found_inf.item() after the overflow check's all-reduce
  grad_norm,  ///< gradient clipping: total_norm.item() after the norm's all-reduce
  p2p,        ///< Megatron's torch.cuda.synchronize() after each batched pipeline exchange
  loss,       ///< the reported loss's .item() at the end of the iteration
  moe_tokens  ///< a MoE layer's tokens per expert copied to the host (the dropless dispatcher)
};
inline constexpr int kSyncPointCount = 5;

enum class MemoryCategory : std::uint8_t {
  parameters,
  gradients,
  optimizer_state,
  activations,   ///< saved for the backward pass
  comm_buffers,  ///< gradient buckets, send/receive and gather workspaces
  temporaries    ///< live only inside one op sequence
};
inline constexpr int kMemoryCategoryCount = 6;

std::string_view to_string(Stream s);
std::string_view to_string(Phase p);
std::string_view to_string(GroupKind k);
std::string_view to_string(CollectiveKind k);
std::string_view to_string(MemoryCategory c);
std::string_view to_string(KernelClass c);
std::string_view to_string(SyncPoint p);
/// The class named `name` (as to_string writes it), or nullopt.
std::optional<KernelClass> kernel_class_from_string(std::string_view name);
std::optional<SyncPoint> sync_point_from_string(std::string_view name);

/// C[m,n] = op(A)[m,k] · op(B)[k,n], `batch` independent products (batched GEMM).
/// The dimensions are 32-bit: every op is sized by the largest payload, which 64-bit GEMM
/// dimensions made 16 bytes larger (Op 80 instead of 64 bytes; a 3072-GPU Program holds
/// 10 M ops). Gemm::of checks that they fit.
struct Gemm {
  using Dim = std::int32_t;
  Dim m = 0;
  Dim n = 0;
  Dim k = 0;
  Dim batch = 1;
  DType dtype = DType::bf16;
  bool transpose_a = false;
  bool transpose_b = false;
  /// C's dtype, and whether the GEMM adds into C (beta 1: C read and written) rather than
  /// writes it: Megatron's fused gradient accumulation adds weight gradients into fp32 main
  /// gradients, whose epilogue moves 8 B per element of C where a bf16 output writes 2.
  DType c_dtype = DType::bf16;
  bool accumulate = false;

  /// The GEMM of these dimensions; throws Infeasible naming the dimension and its value when
  /// one is negative or exceeds Dim's range (sweeps skip such plans, as other size limits).
  static Gemm of(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
                 DType dtype = DType::bf16, bool transpose_a = false, bool transpose_b = false);
  /// This GEMM adding into a C of `c` (c_dtype c, accumulate).
  Gemm accumulating_into(DType c) const;
  /// 2·m·n·k·batch.
  Flops flops() const;
  /// Minimum HBM traffic: read A and B once, write C once (and read it when accumulating).
  Bytes min_bytes() const;
};

/// A memory-bound kernel (LayerNorm, softmax, GeLU, dropout, residual add, Adam, ...).
struct Kernel {
  Bytes read;
  Bytes written;
  Flops flops;  ///< arithmetic done (not counted in MFU; informs HFU of element-wise work)
};

/// A collective over a group. `size` follows nccl-tests (parallelism-reference §0.2): the
/// full logical buffer (all-gather: gathered output; reduce-scatter: unreduced input).
struct Collective {
  CollectiveKind kind = CollectiveKind::all_reduce;
  GroupId group = 0;
  Bytes size;
  DType dtype = DType::bf16;
  /// Moved by the GPUs' copy engines (Transformer Engine's userbuffers ring exchange), not by
  /// SM kernels as NCCL's: it takes no SMs from concurrent compute and is not slowed by it
  /// (the profile's interference applies to SM-driven communication only).
  bool copy_engine = false;
};

/// One side of a point-to-point transfer; sends and receives between two ranks match in order.
struct Send {
  Rank peer = 0;
  Bytes size;
};
struct Recv {
  Rank peer = 0;
  Bytes size;
};

struct Alloc {
  BufferId buffer = 0;
  Bytes size;
  MemoryCategory category = MemoryCategory::temporaries;
};
struct Free {
  BufferId buffer = 0;
};

/// The host waits here for its GPU (on Stream::host; no GPU work). `device`: for every op
/// issued so far on every GPU stream (torch.cuda.synchronize()); otherwise for the ops issued
/// so far on the compute stream and the op's dependencies (tensor.item(): the copy is queued
/// on the compute stream behind what produced the tensor). Whether the host really waits is
/// the profile's choice (`host.sync_points`); where it does not, the op costs nothing.
struct HostSync {
  SyncPoint point = SyncPoint::grad_norm;
  bool device = false;
};

using Payload = std::variant<Gemm, Kernel, Collective, Send, Recv, Alloc, Free, HostSync>;

/// Where an op belongs in the model and the schedule (for reports and traces).
struct Tag {
  static constexpr std::int32_t kNoLayer = -1;
  std::int32_t layer =
      kNoLayer;  ///< transformer layer index, or kNoLayer (embedding, loss, optimizer)
  std::int32_t micro_batch = 0;
  std::int16_t chunk = 0;  ///< model chunk (virtual pipeline stage) on this rank
  Phase phase = Phase::forward;
};

struct Op {
  Payload payload;
  Stream stream = Stream::compute;
  Tag tag;
  NameId name = 0;
  /// Range [dep_begin, dep_end) into RankProgram::dep_pool: ops of this rank (on other
  /// streams) that must finish before this one starts. Same-stream order is implicit.
  std::int32_t dep_begin = 0;
  std::int32_t dep_end = 0;
  /// A Kernel's class (the achieved bandwidth its bytes move at); elementwise for every other
  /// op. Last, in what was padding, so that an Op stays 64 bytes.
  KernelClass kernel_class = KernelClass::elementwise;

  bool is_compute() const {
    return std::holds_alternative<Gemm>(payload) || std::holds_alternative<Kernel>(payload);
  }
  bool is_memory_event() const {
    return std::holds_alternative<Alloc>(payload) || std::holds_alternative<Free>(payload);
  }
  /// FLOPs of a GEMM or kernel, zero otherwise.
  Flops flops() const;
  /// The tensor-core work (what HFU counts): a GEMM's FLOPs, and a fused attention kernel's
  /// (the products it runs: causal tiles skipped, the backward's recomputed scores included);
  /// zero for memory-bound kernels and every other op.
  Flops tensor_core_flops() const;
};
static_assert(sizeof(Payload) == 32 && sizeof(Op) == 64,
              "an op is recorded 10 M times for a 3072-GPU run: keep it at 64 bytes");

struct Group {
  GroupId id = 0;
  GroupKind kind = GroupKind::tp;
  std::vector<Rank> ranks;  ///< in ring order
  /// Groups that are images of each other under the plan's symmetry (all TP groups, all DP
  /// groups, ...) share a family; a representative replay launches a collective for the
  /// whole family at once.
  std::int32_t family = 0;
};

struct RankProgram {
  Rank rank = 0;
  std::vector<Op> ops;
  std::vector<OpIndex> dep_pool;

  std::span<const OpIndex> deps(const Op& op) const {
    return {dep_pool.data() + op.dep_begin, dep_pool.data() + op.dep_end};
  }
};

/// Interned op names ("layer.fc1", "attn.softmax", ...) so an Op stays small.
class NameTable {
 public:
  NameId intern(std::string_view name);
  std::string_view name(NameId id) const { return names_[static_cast<std::size_t>(id)]; }
  std::size_t size() const { return names_.size(); }

 private:
  /// Looks names up without copying them into a std::string.
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> names_;
  std::unordered_map<std::string, NameId, Hash, std::equal_to<>> ids_;
};

/// The world's ranks as coordinates in Megatron's order, TP fastest, then CP, DP and PP:
/// rank = tp + T·(cp + C·(dp + D·pp)). All zero where unknown (a Program made by hand).
struct RankAxes {
  std::int32_t tp = 0, cp = 0, dp = 0, pp = 0;

  bool known() const { return tp > 0 && cp > 0 && dp > 0 && pp > 0; }
  /// The rank that stands to `image` as `to` stands to `from`: `to` moved by `from`'s offset
  /// to `image` along each axis, around it (a CP ring's last rank sends to its first). Needs
  /// known().
  Rank translate(Rank to, Rank from, Rank image) const;
  /// `rank`'s place in its CP ring. Needs known().
  std::int32_t cp_of(Rank rank) const { return rank / tp % cp; }
};

/// One training iteration of every recorded rank.
struct Program {
  std::int32_t world_size = 0;
  RankAxes axes;
  /// GPUs per node the recorded classes hold for (0: any). CP rank 0 stands for its whole ring
  /// only where every hop of the ring crosses the same kind of link (build_program), which
  /// the node size decides; a replay on nodes of another size is refused.
  std::int32_t gpus_per_node = 0;
  std::vector<Group> groups;       ///< indexed by GroupId
  std::vector<RankProgram> ranks;  ///< recorded ranks, ascending rank order
  /// For every world rank, the index into `ranks` of the recorded rank that stands for it
  /// (itself when every rank is recorded).
  std::vector<std::int32_t> representative;
  NameTable names;

  bool records_every_rank() const { return ranks.size() == static_cast<std::size_t>(world_size); }
  std::size_t op_count() const;
};

/// Gives the ops of `program.ranks[i]`, recorded with names interned in `tables[i]`, ids in
/// `program.names` instead (which must be empty): the ids interning each rank's ops in rank
/// order would give. Takes the first table over.
void merge_names(Program& program, std::span<NameTable> tables);

/// "L12 attn.qkv" for an op of a transformer layer, the bare name otherwise.
std::string op_label(const Program& program, const Op& op);

}  // namespace trainsim::program
