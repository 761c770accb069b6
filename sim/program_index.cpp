#include "sim/program_index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>

#include "models/parallel_for.hpp"
#include "sim/compute_model.hpp"
#include "sim/replay_world.hpp"

namespace trainsim::sim {

namespace {

using program::GroupId;
using program::OpIndex;
using program::Rank;

/// The allocated, not yet freed buffers of one rank while it is indexed: size and category by
/// buffer id. The meta backend numbers a rank's buffers 0, 1, 2, ... (fewer than its ops), so
/// such ids index a flat table: a hash map, one node allocated and freed per buffer, cost
/// ~3 % of a 3072-GPU simulate's CPU (3.4 M buffers). Other ids (Programs built by hand) go
/// to a map; validation is the same for both.
class LiveBuffers {
 public:
  struct Entry {
    std::int64_t bytes = 0;
    std::int32_t category = 0;
    bool live = false;
  };

  /// Ids 0 .. dense_ids - 1 use the flat table.
  explicit LiveBuffers(std::size_t dense_ids) : dense_(dense_ids) {}

  /// Marks `id` live; false when it already is.
  bool add(program::BufferId id, std::int64_t bytes, std::int32_t category) {
    Entry& e = entry(id);
    if (e.live) return false;
    e = Entry{bytes, category, true};
    return true;
  }

  /// Ends `id` and gives its size and category; nullopt when it is not live.
  std::optional<Entry> remove(program::BufferId id) {
    if (!is_dense(id)) {
      const auto it = sparse_.find(id);
      if (it == sparse_.end()) return std::nullopt;
      const Entry e = it->second;
      sparse_.erase(it);
      return e;
    }
    Entry& e = dense_[static_cast<std::size_t>(id)];
    if (!e.live) return std::nullopt;
    e.live = false;
    return e;
  }

 private:
  bool is_dense(program::BufferId id) const {
    return id >= 0 && static_cast<std::uint64_t>(id) < dense_.size();
  }
  Entry& entry(program::BufferId id) {
    return is_dense(id) ? dense_[static_cast<std::size_t>(id)] : sparse_[id];
  }

  std::vector<Entry> dense_;
  std::unordered_map<program::BufferId, Entry> sparse_;
};

/// Fills a ProgramIndex; one per index_program call.
struct Indexer {
  const program::Program& program;
  const hw::HardwareProfile& hw;
  const Topology& topology;
  ProgramIndex& index;
  ReplayWorld* reuse;  ///< null, or the world keeping the groups of the Program indexed last
  IndexUse purpose;
  std::vector<IndexedRank>& ranks = index.ranks;
  std::vector<IndexedGroup>& groups = index.groups;
  std::vector<IndexedChannel>& channels = index.channels;
  std::vector<std::int32_t>& representative = index.representative;
  std::vector<std::int32_t>& represented_begin = index.represented_begin;
  std::vector<Rank>& represented = index.represented;

  [[noreturn]] void invalid(const std::string& what) const {
    throw InvalidProgram(fmt::format("program: {}", what));
  }

  void run() {
    const std::int32_t world = program.world_size;
    if (world < 1) invalid(fmt::format("world size must be >= 1, got {}", world));
    if (program.ranks.empty()) invalid("no recorded ranks");
    if (program.gpus_per_node != 0 && program.gpus_per_node != hw.node.gpus) {
      invalid(fmt::format(
          "recorded for nodes of {} GPUs (CP rank 0 standing for its ring), replayed on nodes "
          "of {}: build it for this profile's node size",
          program.gpus_per_node, hw.node.gpus));
    }
    representative = program.representative;
    if (representative.empty() && program.records_every_rank()) {
      representative.resize(static_cast<std::size_t>(world));
      for (std::int32_t r = 0; r < world; ++r)
        representative[static_cast<std::size_t>(r)] = r;
    }
    if (representative.size() != static_cast<std::size_t>(world)) {
      invalid(fmt::format("representative has {} entries for world size {}", representative.size(),
                          world));
    }
    for (const std::int32_t idx : representative) {
      if (idx < 0 || static_cast<std::size_t>(idx) >= program.ranks.size()) {
        invalid(
            fmt::format("representative index {} outside 0..{}", idx, program.ranks.size() - 1));
      }
    }
    for (const program::RankProgram& rp : program.ranks) {
      if (rp.rank < 0 || rp.rank >= world) {
        invalid(fmt::format("recorded rank {} outside 0..{}", rp.rank, world - 1));
      }
    }
    represented_begin.assign(program.ranks.size() + 1, 0);
    for (const std::int32_t idx : representative)
      ++represented_begin[static_cast<std::size_t>(idx) + 1];
    for (std::size_t i = 0; i < program.ranks.size(); ++i)
      represented_begin[i + 1] += represented_begin[i];
    represented.resize(representative.size());
    {
      std::vector<std::int32_t> fill(represented_begin.begin(), represented_begin.end() - 1);
      for (std::int32_t w = 0; w < world; ++w) {
        represented[static_cast<std::size_t>(
            fill[static_cast<std::size_t>(representative[static_cast<std::size_t>(w)])]++)] = w;
      }
    }
    index_groups();
    // Ranks are indexed independently (in parallel); what they share, the instance counts of
    // groups and the p2p channels, is merged afterwards in rank order, as one sequential pass
    // would have made it.
    ranks.resize(program.ranks.size());
    std::vector<RankShared> shared(program.ranks.size());
    for_each_in_parallel(program.ranks.size(), [&](std::size_t r) {
      std::vector<std::int32_t> issued(groups.size(), 0);
      index_rank(static_cast<std::int32_t>(r), issued, shared[r]);
      for (std::size_t g = 0; g < issued.size(); ++g) {
        if (issued[g] > 0) shared[r].issued.emplace_back(static_cast<GroupId>(g), issued[g]);
      }
    });
    std::unordered_map<std::uint64_t, std::int32_t> channel_of;
    for (std::size_t r = 0; r < shared.size(); ++r) {
      for (const auto& [g, count] : shared[r].issued) {
        IndexedGroup& ig = groups[static_cast<std::size_t>(g)];
        ig.instances = std::max(ig.instances, count);
      }
      for (const P2pUse& use : shared[r].p2p)
        add_to_channel(static_cast<std::int32_t>(r), use, channel_of);
      for (const auto& [g, call] : shared[r].calls)
        groups[static_cast<std::size_t>(g)].calls.push_back(call);
    }
  }

  /// A send or receive of a rank, waiting for its channel.
  struct P2pUse {
    OpIndex op = 0;
    std::int32_t other = 0;  ///< recorded-rank index of the peer
    bool is_send = false;
  };
  /// What indexing one rank contributes to state shared by all ranks.
  struct RankShared {
    std::vector<std::pair<GroupId, std::int32_t>> issued;  ///< collectives per group
    std::vector<P2pUse> p2p;                               ///< in op order
    /// The collectives it issues on the groups it is the first needed member of, in op order.
    std::vector<std::pair<GroupId, IndexedCall>> calls;
  };

  void add_to_channel(std::int32_t r, const P2pUse& use,
                      std::unordered_map<std::uint64_t, std::int32_t>& channel_of) {
    const std::int32_t sender = use.is_send ? r : use.other;
    const std::int32_t receiver = use.is_send ? use.other : r;
    const std::uint64_t key =
        (static_cast<std::uint64_t>(static_cast<std::uint32_t>(sender)) << 32) |
        static_cast<std::uint32_t>(receiver);
    auto [it, inserted] = channel_of.emplace(key, static_cast<std::int32_t>(channels.size()));
    if (inserted) channels.push_back(IndexedChannel{sender, receiver, {}, {}});
    IndexedChannel& c = channels[static_cast<std::size_t>(it->second)];
    auto& list = use.is_send ? c.send_ops : c.recv_ops;
    OpInfo& info = ranks[static_cast<std::size_t>(r)].info(use.op);
    info.ref = it->second;
    info.value = static_cast<std::int64_t>(list.size());
    list.push_back(use.op);
  }

  void index_groups() {
    if (reuse) {
      if (const std::vector<IndexedGroup>* kept = reuse->reusable_groups(program, representative)) {
        groups = *kept;
        return;
      }
    }
    index_new_groups();
    if (reuse) reuse->keep_groups(program, representative, groups);
  }

  void index_new_groups() {
    const auto& pg = program.groups;
    groups.resize(pg.size());
    // Ordered by family id so that launch lists never depend on the standard library's hashing.
    std::map<std::int32_t, std::vector<GroupId>> families;
    for (std::size_t g = 0; g < pg.size(); ++g) {
      IndexedGroup& gs = groups[g];
      for (const Rank m : pg[g].ranks) {
        if (m < 0 || m >= program.world_size) {
          invalid(fmt::format("group {} has rank {} outside 0..{}", g, m, program.world_size - 1));
        }
        const std::int32_t rep = representative[static_cast<std::size_t>(m)];
        gs.needed.push_back(rep);
        gs.gpus.push_back(m);
        if (program.ranks[static_cast<std::size_t>(rep)].rank == m) gs.driven = true;
      }
      std::sort(gs.needed.begin(), gs.needed.end());
      gs.needed.erase(std::unique(gs.needed.begin(), gs.needed.end()), gs.needed.end());
      gs.rings = collective_rings(gs.gpus, topology, hw.network.nics_per_node);
      gs.nodes = gs.rings.nodes;
      if (gs.driven) gs.launches.push_back(static_cast<GroupId>(g));
      families[pg[g].family].push_back(static_cast<GroupId>(g));
    }
    if (program.records_every_rank()) return;
    // Representative replay: a group none of whose members is recorded is the image of a
    // recorded group under the plan's symmetry; its flows start with that group's
    // collectives, so all groups of a family transfer concurrently as they do in reality.
    for (auto& [family, members] : families) {
      std::sort(members.begin(), members.end());
      std::unordered_map<Rank, GroupId> driven_by_rank;
      for (const GroupId g : members) {
        if (!groups[static_cast<std::size_t>(g)].driven) continue;
        for (const Rank m : pg[static_cast<std::size_t>(g)].ranks)
          driven_by_rank.emplace(m, g);
      }
      for (const GroupId h : members) {
        IndexedGroup& hs = groups[static_cast<std::size_t>(h)];
        if (hs.driven || hs.gpus.empty()) continue;
        const Rank stand_in = program
                                  .ranks[static_cast<std::size_t>(
                                      representative[static_cast<std::size_t>(hs.gpus.front())])]
                                  .rank;
        if (auto it = driven_by_rank.find(stand_in); it != driven_by_rank.end()) {
          groups[static_cast<std::size_t>(it->second)].launches.push_back(h);
        }
      }
    }
  }

  void index_rank(std::int32_t r, std::vector<std::int32_t>& issued, RankShared& shared) {
    const program::RankProgram& rp = program.ranks[static_cast<std::size_t>(r)];
    IndexedRank& rs = ranks[static_cast<std::size_t>(r)];
    const auto n = static_cast<std::int32_t>(rp.ops.size());
    // Slots first (each stream's ops consecutive, in program order), so every OpInfo is
    // written once, in its place.
    std::vector<std::uint8_t> stream_of(static_cast<std::size_t>(n));
    std::array<std::int32_t, program::kStreamCount> per_stream{};
    constexpr auto host = static_cast<std::size_t>(program::Stream::host);
    // The meta backend numbers a rank's buffers 0, 1, 2, ..., one per allocation: the flat
    // table of live buffers needs no more entries than allocations (ops: 3 times as many on a
    // context-parallel pipeline, every entry zeroed and first touched).
    std::size_t allocations = 0;
    for (std::int32_t i = 0; i < n; ++i) {
      const program::Op& op = rp.ops[static_cast<std::size_t>(i)];
      if (std::holds_alternative<program::Alloc>(op.payload)) ++allocations;
      const auto stream = static_cast<std::size_t>(op.stream);
      if (stream >= program::kStreamCount)
        invalid(fmt::format("rank {} op {}: bad stream", rp.rank, i));
      stream_of[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(stream);
      if (stream == host) rs.sync_frontiers.push_back(per_stream);
      ++per_stream[stream];
    }
    std::int32_t offset = 0;
    for (std::size_t s = 0; s < program::kStreamCount; ++s) {
      rs.streams[s].begin = offset;
      offset += per_stream[s];
      rs.streams[s].end = offset;
    }
    std::array<std::int32_t, program::kStreamCount> cursor{};
    for (std::size_t s = 0; s < program::kStreamCount; ++s)
      cursor[s] = rs.streams[s].begin;
    rs.slot_of.resize(static_cast<std::size_t>(n));
    for (std::int32_t i = 0; i < n; ++i)
      rs.slot_of[static_cast<std::size_t>(i)] = cursor[stream_of[static_cast<std::size_t>(i)]]++;

    rs.slots.resize(static_cast<std::size_t>(n));
    const bool replay = purpose == IndexUse::replay;
    if (hw.host && replay) rs.host_cost.resize(static_cast<std::size_t>(n), HostCost::none);
    LiveBuffers live_buffers(allocations);
    GemmTimes gemm_times(hw);
    // Each dependency as (its op's slot, the dependent's slot), in program order: the
    // dependents' CSR is filled from these, not by reading every op again (64 bytes each,
    // a third pass over the largest Programs' gigabyte).
    std::vector<std::pair<Slot, Slot>> edges;
    if (replay) {
      rs.dependents_begin.assign(static_cast<std::size_t>(n) + 1, 0);
      edges.reserve(rp.dep_pool.size());
    }
    for (std::int32_t i = 0; i < n; ++i) {
      const program::Op& op = rp.ops[static_cast<std::size_t>(i)];
      OpInfo& info = rs.slots[static_cast<std::size_t>(rs.slot_of[static_cast<std::size_t>(i)])];
      info.op = i;
      info.stream = stream_of[static_cast<std::size_t>(i)];
      info.phase = op.tag.phase;
      if (op.dep_begin < 0 || op.dep_end < op.dep_begin ||
          static_cast<std::size_t>(op.dep_end) > rp.dep_pool.size()) {
        invalid(fmt::format("rank {} op {}: dependency range out of the pool", rp.rank, i));
      }
      for (const OpIndex d : rp.deps(op)) {
        if (d < 0 || d >= n || d == i) {
          invalid(fmt::format("rank {} op {}: dependency {} outside 0..{} or itself", rp.rank, i, d,
                              n - 1));
        }
        ++info.pending;
        if (replay) {
          const Slot from = rs.slot_of[static_cast<std::size_t>(d)];
          ++rs.dependents_begin[static_cast<std::size_t>(from) + 1];
          edges.emplace_back(from, rs.slot_of[static_cast<std::size_t>(i)]);
        }
      }
      std::visit(
          [&](const auto& payload) {
            index_payload(r, i, op, payload, info, issued, live_buffers, gemm_times, shared);
          },
          op.payload);
      if ((info.kind == OpKind::host_sync) != (op.stream == program::Stream::host)) {
        invalid(fmt::format("rank {} op {}: host syncs and only they go on the host stream",
                            rp.rank, i));
      }
      if (!rs.host_cost.empty()) rs.host_cost[static_cast<std::size_t>(i)] = host_cost_of(op);
      rs.tensor_core_flops += op.tensor_core_flops();
    }
    if (!replay) return;
    // Dependents in CSR form, so finishing an op touches only the ops waiting on it; each
    // op's dependents in program order.
    for (std::int32_t s = 0; s < n; ++s) {
      rs.dependents_begin[static_cast<std::size_t>(s) + 1] +=
          rs.dependents_begin[static_cast<std::size_t>(s)];
    }
    rs.dependents.resize(edges.size());
    std::vector<std::int32_t> fill(rs.dependents_begin.begin(), rs.dependents_begin.end() - 1);
    for (const auto& [from, to] : edges)
      rs.dependents[static_cast<std::size_t>(fill[static_cast<std::size_t>(from)]++)] = to;
  }

  static HostCost host_cost_of(const program::Op& op) {
    return std::visit(
        [](const auto& payload) {
          using P = std::decay_t<decltype(payload)>;
          if constexpr (std::is_same_v<P, program::Gemm>) return HostCost::gemm;
          if constexpr (std::is_same_v<P, program::Kernel>) return HostCost::kernel;
          if constexpr (std::is_same_v<P, program::Collective>) return HostCost::collective;
          if constexpr (std::is_same_v<P, program::Send> || std::is_same_v<P, program::Recv>)
            return HostCost::p2p;
          if constexpr (std::is_same_v<P, program::HostSync>) return HostCost::sync;
          return HostCost::none;
        },
        op.payload);
  }

  /// A kernel's dependency range, kept in its OpInfo (see OpInfo::deps).
  void note_deps(std::int32_t r, OpIndex i, OpInfo& info) const {
    const program::Op& op =
        program.ranks[static_cast<std::size_t>(r)].ops[static_cast<std::size_t>(i)];
    const std::int32_t count = op.dep_end - op.dep_begin;
    info.ref = op.dep_begin;
    info.deps = count < kManyDeps ? static_cast<std::uint8_t>(count) : kManyDeps;
  }

  template <class Payload>
  void index_payload(std::int32_t r, OpIndex i, const program::Op& op, const Payload& payload,
                     OpInfo& info, std::vector<std::int32_t>& issued, LiveBuffers& live_buffers,
                     GemmTimes& gemm_times, RankShared& shared) {
    const Rank rank = program.ranks[static_cast<std::size_t>(r)].rank;
    if constexpr (std::is_same_v<Payload, program::Gemm>) {
      info.kind = OpKind::compute;
      if (purpose == IndexUse::replay) info.value = gemm_times(payload).ps();
      note_deps(r, i, info);
    } else if constexpr (std::is_same_v<Payload, program::Kernel>) {
      info.kind = OpKind::compute;
      if (purpose == IndexUse::replay) info.value = kernel_time(payload, hw, op.kernel_class).ps();
      note_deps(r, i, info);
    } else if constexpr (std::is_same_v<Payload, program::Alloc>) {
      info.kind = OpKind::alloc;
      info.value = payload.size.count();
      info.ref = static_cast<std::int32_t>(payload.category);
      if (!live_buffers.add(payload.buffer, info.value, info.ref)) {
        invalid(fmt::format("rank {} op {}: buffer {} allocated twice without a free", rank, i,
                            payload.buffer));
      }
    } else if constexpr (std::is_same_v<Payload, program::Free>) {
      info.kind = OpKind::free;
      const std::optional<LiveBuffers::Entry> freed = live_buffers.remove(payload.buffer);
      if (!freed) {
        invalid(fmt::format("rank {} op {}: free of buffer {} that is not allocated", rank, i,
                            payload.buffer));
      }
      info.value = freed->bytes;
      info.ref = freed->category;
    } else if constexpr (std::is_same_v<Payload, program::Collective>) {
      info.kind = OpKind::collective;
      if (payload.group < 0 || static_cast<std::size_t>(payload.group) >= groups.size()) {
        invalid(fmt::format("rank {} op {}: group {} does not exist", rank, i, payload.group));
      }
      const IndexedGroup& g = groups[static_cast<std::size_t>(payload.group)];
      const auto slot = std::lower_bound(g.needed.begin(), g.needed.end(), r);
      if (slot == g.needed.end() || *slot != r) {
        invalid(fmt::format("rank {} op {}: collective on group {} which it is not a member of",
                            rank, i, payload.group));
      }
      info.ref = payload.group;
      info.value = issued[static_cast<std::size_t>(payload.group)]++;
      if (g.needed.front() == r)
        shared.calls.emplace_back(payload.group,
                                  IndexedCall{payload.size, payload.kind, payload.copy_engine});
    } else if constexpr (std::is_same_v<Payload, program::HostSync>) {
      info.kind = OpKind::host_sync;
      info.value = static_cast<std::int64_t>(payload.point) | (payload.device ? 0x100 : 0);
      note_deps(r, i, info);
    } else {
      static_assert(std::is_same_v<Payload, program::Send> ||
                    std::is_same_v<Payload, program::Recv>);
      constexpr bool is_send = std::is_same_v<Payload, program::Send>;
      info.kind = is_send ? OpKind::send : OpKind::recv;
      if (payload.peer < 0 || payload.peer >= program.world_size) {
        invalid(fmt::format("rank {} op {}: peer {} outside 0..{}", rank, i, payload.peer,
                            program.world_size - 1));
      }
      // Channel ids follow first use in rank order: assigned once every rank is indexed.
      shared.p2p.push_back({i, representative[static_cast<std::size_t>(payload.peer)], is_send});
    }
  }
};

}  // namespace

void apply_kernel_slowdowns(ProgramIndex& index, std::span<const double> per_gpu) {
  if (per_gpu.size() != index.representative.size()) {
    throw InvalidProgram(fmt::format("{} kernel slowdowns for {} GPUs", per_gpu.size(),
                                     index.representative.size()));
  }
  for (const double f : per_gpu) {
    if (!std::isfinite(f) || f < 1.0)
      throw InvalidProgram(fmt::format("kernel slowdown {}: expected a finite factor >= 1", f));
  }
  for (std::size_t r = 0; r < index.ranks.size(); ++r) {
    double factor = 1.0;
    for (const program::Rank g : index.represented_by(static_cast<std::int32_t>(r)))
      factor = std::max(factor, per_gpu[static_cast<std::size_t>(g)]);
    if (factor == 1.0) continue;
    for (OpInfo& info : index.ranks[r].slots) {
      if (info.kind == OpKind::compute)
        info.value = std::llround(static_cast<double>(info.value) * factor);
    }
  }
}

ProgramIndex index_program(const program::Program& program, const hw::HardwareProfile& hw,
                           const Topology& topology, IndexUse use) {
  ProgramIndex index;
  Indexer{program, hw, topology, index, nullptr, use}.run();
  return index;
}

ProgramIndex index_program(const program::Program& program, ReplayWorld& world, IndexUse use) {
  if (world.gpu_count() != std::max<std::int32_t>(1, program.world_size)) {
    throw std::invalid_argument(fmt::format("index: a world of {} GPUs for a Program of {}",
                                            world.gpu_count(), program.world_size));
  }
  ProgramIndex index;
  Indexer{program, world.hardware(), world.topology(), index, &world, use}.run();
  return index;
}

}  // namespace trainsim::sim
