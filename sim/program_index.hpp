#pragma once
// The replay's index of a Program, validated once and packed for the event loop: per
// recorded rank, ops with their modelled durations in stream order and dependents (CSR);
// per group, the recorded ranks standing for its members, its rings and, in representative
// replay, the unrecorded groups whose flows it launches; per (sender, receiver) pair of
// recorded ranks, the point-to-point channel matching sends with receives in issue order.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "models/program.hpp"
#include "sim/collective_model.hpp"
#include "sim/hardware_profile.hpp"
#include "sim/invalid_program.hpp"
#include "sim/topology.hpp"

namespace trainsim::sim {

class ReplayWorld;

enum class OpKind : std::uint8_t { compute, alloc, free, collective, send, recv, host_sync };

/// What the replay needs of an op in its hot loop, packed away from the Program's variant
/// (24 bytes, kept in stream order: see IndexedRank::slots).
struct OpInfo {
  /// compute: duration (ps); alloc/free: bytes; comm: instance k; host_sync: its SyncPoint
  /// (low byte) and, above it, 1 when it waits for every stream
  std::int64_t value = 0;
  /// collective: group; send/recv: channel; alloc/free: category; compute: the start of its
  /// dependencies in RankProgram::dep_pool (see `deps`)
  std::int32_t ref = 0;
  std::int32_t pending = 0;  ///< unfinished dependencies (the replay counts it down)
  program::OpIndex op = 0;   ///< the op's index in RankProgram::ops
  OpKind kind = OpKind::compute;
  std::uint8_t stream = 0;
  program::Phase phase = program::Phase::forward;  ///< copied so completion stays in cache
  /// compute: how many dependencies it has, or kManyDeps. With `ref`, what released a kernel
  /// after an idle stretch is found without reading its Program op, which misses the cache.
  std::uint8_t deps = 0;
};
static_assert(sizeof(OpInfo) == 24, "OpInfo is read once per op by the event loop: keep it small");

/// OpInfo::deps of a kernel with more dependencies than the byte holds: read them from the
/// Program.
inline constexpr std::uint8_t kManyDeps = 255;

/// A position in IndexedRank::slots.
using Slot = std::int32_t;

/// What issuing an op costs its host (hw::HostSpec), by kind.
enum class HostCost : std::uint8_t { none, gemm, kernel, collective, p2p, sync };

/// The range of IndexedRank::slots holding one stream's ops.
struct StreamRange {
  std::int32_t begin = 0;
  std::int32_t end = 0;
};

struct IndexedRank {
  /// Every op's OpInfo in stream order: a stream's ops in program order, the streams one
  /// after another. A stream head walks one array, so the event loop's load of the next op
  /// is usually in a cache line it already has (before, an `order` entry and an OpInfo
  /// indexed by op each missed the cache once per op).
  std::vector<OpInfo> slots;
  std::vector<Slot> slot_of;  ///< op index -> its slot
  std::array<StreamRange, program::kStreamCount> streams{};
  /// The rank's tensor-core work (program::Op::tensor_core_flops summed in program order),
  /// taken while the ops are read anyway: the summary's HFU needs no pass of its own over
  /// the Program (680 MB on the 3072-GPU row).
  Flops tensor_core_flops = Flops::zero();
  std::vector<std::int32_t> dependents_begin;  ///< CSR by slot: size ops + 1
  std::vector<Slot> dependents;                ///< slots of the ops waiting on a slot's op
  /// With a host model (the profile's `host`): each op's issue cost, in program order (the
  /// host's order), so the host walks one byte per op.
  std::vector<HostCost> host_cost;
  /// Per host sync (by position on the host stream): how many ops of each stream the program
  /// issued before it, i.e. what a stream must have finished for the host to go on.
  std::vector<std::array<std::int32_t, program::kStreamCount>> sync_frontiers;

  const OpInfo& info(program::OpIndex i) const {
    return slots[static_cast<std::size_t>(slot_of[static_cast<std::size_t>(i)])];
  }
  OpInfo& info(program::OpIndex i) {
    return slots[static_cast<std::size_t>(slot_of[static_cast<std::size_t>(i)])];
  }
  /// Slots of the ops that depend on the op in slot `s`.
  std::span<const Slot> dependents_of(Slot s) const {
    const auto b = static_cast<std::size_t>(dependents_begin[static_cast<std::size_t>(s)]);
    const auto e = static_cast<std::size_t>(dependents_begin[static_cast<std::size_t>(s) + 1]);
    return std::span<const Slot>(dependents).subspan(b, e - b);
  }
};

/// The k-th collective on a group as it is launched: its kind and size as the group's first
/// needed member issued it (kept here so that a launch reads no Program op).
struct IndexedCall {
  Bytes size;
  program::CollectiveKind kind = program::CollectiveKind::all_reduce;
  bool copy_engine = false;  ///< program::Collective::copy_engine
};

struct IndexedGroup {
  std::vector<std::int32_t> needed;  ///< recorded-rank indices standing for the members, sorted
  std::vector<std::int32_t> gpus;    ///< world ranks in the group's order
  CollectiveRings rings;             ///< the rings its collectives run on
  std::int64_t nodes = 1;
  bool driven = false;  ///< some member is recorded as itself
  std::vector<program::GroupId>
      launches;                    ///< groups whose flows start with this group's collective
  std::int32_t instances = 0;      ///< collectives issued on the group (most by any rank)
  std::vector<IndexedCall> calls;  ///< per instance, as `needed.front()` issued them
};

/// Sends from one recorded rank to another, matched with receives by issue order.
struct IndexedChannel {
  std::int32_t sender = 0;    ///< recorded-rank index
  std::int32_t receiver = 0;  ///< recorded-rank index
  std::vector<program::OpIndex> send_ops;
  std::vector<program::OpIndex> recv_ops;
};

struct ProgramIndex {
  std::vector<IndexedRank> ranks;    ///< parallel to Program::ranks
  std::vector<IndexedGroup> groups;  ///< parallel to Program::groups
  std::vector<IndexedChannel> channels;
  /// World rank -> index of the recorded rank standing for it.
  std::vector<std::int32_t> representative;
  /// CSR: recorded index -> the world ranks it stands for, ascending.
  std::vector<std::int32_t> represented_begin;
  std::vector<program::Rank> represented;

  /// World ranks that recorded rank index `r` stands for, ascending.
  std::span<const program::Rank> represented_by(std::int32_t r) const {
    const auto b = static_cast<std::size_t>(represented_begin[static_cast<std::size_t>(r)]);
    const auto e = static_cast<std::size_t>(represented_begin[static_cast<std::size_t>(r) + 1]);
    return std::span<const program::Rank>(represented).subspan(b, e - b);
  }
};

/// What an index serves: a replay, or a tally of the communication's bytes (sim/link_traffic),
/// which reads no compute duration, host cost or dependent: left zero and empty, and the
/// Program validated all the same.
enum class IndexUse : std::uint8_t { replay, traffic };

/// Validates and indexes `program` for replay on `topology`; compute durations come from
/// `hw`'s compute model. Throws InvalidProgram, or (for a replay) Infeasible when the profile
/// lacks a peak rate for a GEMM's dtype.
ProgramIndex index_program(const program::Program& program, const hw::HardwareProfile& hw,
                           const Topology& topology, IndexUse use = IndexUse::replay);
/// The same on `world`'s topology and profile, its groups reused from the Program `world`
/// indexed last where they are alike (sim/replay_world.hpp). Throws std::invalid_argument
/// when the world's GPU count is not the Program's world size.
ProgramIndex index_program(const program::Program& program, ReplayWorld& world,
                           IndexUse use = IndexUse::replay);

/// Stretches the compute ops of each recorded rank by the largest factor among the GPUs it
/// stands for (`per_gpu`: one factor per world GPU, ≥ 1; stragglers). With every rank
/// recorded, each GPU's own. In a representative replay the recorded rank's GPUs run as one:
/// every collective of its class waits for the slowest member, so the class runs at that
/// member's pace (exact for the iteration time when the class's members meet in a collective
/// each iteration; what the others do while they wait is not shown). Throws InvalidProgram
/// unless `per_gpu` has one factor per world GPU, each finite and ≥ 1.
void apply_kernel_slowdowns(ProgramIndex& index, std::span<const double> per_gpu);

}  // namespace trainsim::sim
