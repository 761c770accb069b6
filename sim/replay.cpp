#include "sim/replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "sim/collective_model.hpp"
#include "sim/compute_model.hpp"
#include "sim/engine.hpp"
#include "sim/flow_network.hpp"
#include "sim/topology.hpp"

namespace trainsim::sim {

namespace {

using program::Collective;
using program::GroupId;
using program::OpIndex;
using program::Rank;

enum class OpKind : std::uint8_t { compute, alloc, free, collective, send, recv };

/// Event kinds dispatched by Simulation::State::on_event.
enum EventKind : std::int32_t { kComputeDone = 0, kActivityDone = 1 };

/// What the replay needs of an op in its hot loop, packed away from the Program's variant.
struct OpInfo {
  std::int64_t value = 0;    ///< compute: duration (ps); alloc/free: bytes; comm: instance k
  std::int32_t ref = 0;      ///< collective: group; send/recv: channel; alloc/free: category
  std::int32_t aux = 0;      ///< collective: slot of this rank among the group's members
  std::int32_t pending = 0;  ///< unfinished dependencies
  std::int32_t pos = 0;      ///< position in RankState::order
  OpKind kind = OpKind::compute;
  std::uint8_t stream = 0;
  program::Phase phase = program::Phase::forward;  ///< copied so completion stays in cache
};

struct StreamState {
  std::int32_t begin = 0;  ///< range of RankState::order holding this stream's ops
  std::int32_t end = 0;
  std::int32_t head = 0;
  bool busy = false;
  // The compute op in progress, as remaining full-speed work and a rate, so a slowdown
  // starting or ending mid-kernel is exact.
  OpIndex running = -1;
  double remaining_ps = 0.0;
  Time since;
  double rate = 1.0;
  std::uint32_t version = 0;
};

struct RankState {
  std::vector<OpInfo> ops;
  std::vector<OpIndex> order;  ///< op indices grouped by stream, program order within
  std::array<StreamState, program::kStreamCount> streams{};
  std::vector<std::int32_t> dependents_begin;  ///< CSR: size ops + 1
  std::vector<OpIndex> dependents;
  std::vector<OpTiming> timing;
  MemoryByCategory live{};
  Bytes live_total;
  RankMemory memory;
  std::int32_t comm_active = 0;
  Time compute_idle_since;
  TimeBreakdown breakdown;
};

struct GroupState {
  std::vector<std::int32_t> needed;  ///< recorded-rank indices standing for the members
  std::vector<std::int32_t> gpus;    ///< world ranks in ring order
  std::int64_t nodes = 1;
  bool driven = false;            ///< some member is recorded as itself
  std::vector<GroupId> launches;  ///< groups whose flows start with this group's collective
  std::int32_t instances = 0;
  std::vector<std::int32_t> ready;                             ///< per instance, members ready
  std::vector<std::pair<std::int32_t, OpIndex>> participants;  ///< instances x needed slots
};

struct Channel {
  std::int32_t sender = 0;    ///< recorded-rank index
  std::int32_t receiver = 0;  ///< recorded-rank index
  std::vector<OpIndex> send_ops;
  std::vector<OpIndex> recv_ops;
  std::vector<std::uint8_t> send_ready;
  std::vector<std::uint8_t> recv_ready;
};

struct Activity {
  std::int32_t flows_left = 0;
  Time latency;
  std::int32_t part_begin = 0;
  std::int32_t part_end = 0;
};

constexpr Time kNotRun = Time::max();

}  // namespace

struct Simulation::State {
  const program::Program& program;
  const hw::HardwareProfile& hw;
  ReplayOptions options;
  Engine engine;
  Topology topology;
  FlowNetwork flows;
  std::vector<RankState> ranks;
  std::vector<GroupState> groups;
  std::vector<Channel> channels;
  std::vector<Activity> activities;
  std::vector<std::pair<std::int32_t, OpIndex>> activity_parts;
  std::vector<std::pair<std::int32_t, std::int32_t>> worklist;  ///< (rank index, stream)
  std::vector<FlowSpec> flow_specs;
  std::vector<std::int32_t> completed_owners;
  std::vector<std::int32_t> representative;
  /// CSR: recorded index -> the world ranks it stands for, ascending.
  std::vector<std::int32_t> represented_begin;
  std::vector<Rank> represented;
  double slow_rate = 1.0;
  bool ran = false;

  State(const program::Program& p, const hw::HardwareProfile& h, ReplayOptions o)
      : program(p),
        hw(h),
        options(o),
        topology(h, std::max<std::int32_t>(1, p.world_size)),
        flows(topology.link_capacities()) {
    engine.add_resource(flows);
    slow_rate = 1.0 / (1.0 + std::max(0.0, hw.compute_slowdown_during_comm));
    index_program();
  }

  // ---- indexing ---------------------------------------------------------------------------

  [[noreturn]] void invalid(const std::string& what) const {
    throw InvalidProgram(fmt::format("program: {}", what));
  }

  void index_program() {
    const std::int32_t world = program.world_size;
    if (world < 1) invalid(fmt::format("world size must be >= 1, got {}", world));
    if (program.ranks.empty()) invalid("no recorded ranks");
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
    ranks.resize(program.ranks.size());
    std::vector<std::int32_t> issued(groups.size(), 0);
    std::unordered_map<std::uint64_t, std::int32_t> channel_of;
    for (std::size_t r = 0; r < program.ranks.size(); ++r) {
      index_rank(static_cast<std::int32_t>(r), issued, channel_of);
    }
    for (GroupState& g : groups) {
      g.ready.assign(static_cast<std::size_t>(g.instances), 0);
      g.participants.assign(static_cast<std::size_t>(g.instances) * g.needed.size(), {-1, -1});
    }
    for (Channel& c : channels) {
      c.send_ready.assign(c.send_ops.size(), 0);
      c.recv_ready.assign(c.recv_ops.size(), 0);
    }
  }

  void index_groups() {
    const auto& pg = program.groups;
    groups.resize(pg.size());
    std::unordered_map<std::int32_t, std::vector<GroupId>> families;
    for (std::size_t g = 0; g < pg.size(); ++g) {
      GroupState& gs = groups[g];
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
      gs.nodes = nodes_spanned(gs.gpus, topology);
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
        GroupState& hs = groups[static_cast<std::size_t>(h)];
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

  void index_rank(std::int32_t r, std::vector<std::int32_t>& issued,
                  std::unordered_map<std::uint64_t, std::int32_t>& channel_of) {
    const program::RankProgram& rp = program.ranks[static_cast<std::size_t>(r)];
    RankState& rs = ranks[static_cast<std::size_t>(r)];
    const auto n = static_cast<std::int32_t>(rp.ops.size());
    rs.ops.resize(static_cast<std::size_t>(n));
    rs.timing.assign(static_cast<std::size_t>(n), OpTiming{kNotRun, kNotRun});
    rs.memory.rank = rp.rank;
    std::fill(issued.begin(), issued.end(), 0);
    std::unordered_map<program::BufferId, std::pair<std::int64_t, std::int32_t>> live_buffers;
    std::array<std::int32_t, program::kStreamCount> per_stream{};
    rs.dependents_begin.assign(static_cast<std::size_t>(n) + 1, 0);

    for (std::int32_t i = 0; i < n; ++i) {
      const program::Op& op = rp.ops[static_cast<std::size_t>(i)];
      OpInfo& info = rs.ops[static_cast<std::size_t>(i)];
      const auto stream = static_cast<std::size_t>(op.stream);
      if (stream >= program::kStreamCount)
        invalid(fmt::format("rank {} op {}: bad stream", rp.rank, i));
      info.stream = static_cast<std::uint8_t>(stream);
      info.phase = op.tag.phase;
      ++per_stream[stream];
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
        ++rs.dependents_begin[static_cast<std::size_t>(d) + 1];
      }
      std::visit(
          [&](const auto& payload) {
            index_payload(r, i, payload, info, issued, live_buffers, channel_of);
          },
          op.payload);
    }
    // Dependents in CSR form, so finishing an op touches only the ops waiting on it.
    for (std::int32_t i = 0; i < n; ++i) {
      rs.dependents_begin[static_cast<std::size_t>(i) + 1] +=
          rs.dependents_begin[static_cast<std::size_t>(i)];
    }
    rs.dependents.resize(rp.dep_pool.size());
    std::vector<std::int32_t> fill(rs.dependents_begin.begin(), rs.dependents_begin.end() - 1);
    for (std::int32_t i = 0; i < n; ++i) {
      for (const OpIndex d : rp.deps(rp.ops[static_cast<std::size_t>(i)])) {
        rs.dependents[static_cast<std::size_t>(fill[static_cast<std::size_t>(d)]++)] = i;
      }
    }
    rs.order.resize(static_cast<std::size_t>(n));
    std::int32_t offset = 0;
    for (std::size_t s = 0; s < program::kStreamCount; ++s) {
      rs.streams[s].begin = rs.streams[s].head = offset;
      offset += per_stream[s];
      rs.streams[s].end = offset;
    }
    std::array<std::int32_t, program::kStreamCount> cursor{};
    for (std::size_t s = 0; s < program::kStreamCount; ++s)
      cursor[s] = rs.streams[s].begin;
    for (std::int32_t i = 0; i < n; ++i) {
      OpInfo& info = rs.ops[static_cast<std::size_t>(i)];
      info.pos = cursor[info.stream]++;
      rs.order[static_cast<std::size_t>(info.pos)] = i;
    }
  }

  template <class Payload>
  void index_payload(
      std::int32_t r, OpIndex i, const Payload& payload, OpInfo& info,
      std::vector<std::int32_t>& issued,
      std::unordered_map<program::BufferId, std::pair<std::int64_t, std::int32_t>>& live_buffers,
      std::unordered_map<std::uint64_t, std::int32_t>& channel_of) {
    const Rank rank = program.ranks[static_cast<std::size_t>(r)].rank;
    if constexpr (std::is_same_v<Payload, program::Gemm>) {
      info.kind = OpKind::compute;
      info.value = estimate_gemm(payload, hw).time.ps();
    } else if constexpr (std::is_same_v<Payload, program::Kernel>) {
      info.kind = OpKind::compute;
      info.value = kernel_time(payload, hw).ps();
    } else if constexpr (std::is_same_v<Payload, program::Alloc>) {
      info.kind = OpKind::alloc;
      info.value = payload.size.count();
      info.ref = static_cast<std::int32_t>(payload.category);
      if (!live_buffers.emplace(payload.buffer, std::make_pair(info.value, info.ref)).second) {
        invalid(fmt::format("rank {} op {}: buffer {} allocated twice without a free", rank, i,
                            payload.buffer));
      }
    } else if constexpr (std::is_same_v<Payload, program::Free>) {
      info.kind = OpKind::free;
      const auto it = live_buffers.find(payload.buffer);
      if (it == live_buffers.end()) {
        invalid(fmt::format("rank {} op {}: free of buffer {} that is not allocated", rank, i,
                            payload.buffer));
      }
      info.value = it->second.first;
      info.ref = it->second.second;
      live_buffers.erase(it);
    } else if constexpr (std::is_same_v<Payload, program::Collective>) {
      info.kind = OpKind::collective;
      if (payload.group < 0 || static_cast<std::size_t>(payload.group) >= groups.size()) {
        invalid(fmt::format("rank {} op {}: group {} does not exist", rank, i, payload.group));
      }
      GroupState& g = groups[static_cast<std::size_t>(payload.group)];
      const auto slot = std::lower_bound(g.needed.begin(), g.needed.end(), r);
      if (slot == g.needed.end() || *slot != r) {
        invalid(fmt::format("rank {} op {}: collective on group {} which it is not a member of",
                            rank, i, payload.group));
      }
      info.ref = payload.group;
      info.aux = static_cast<std::int32_t>(slot - g.needed.begin());
      info.value = issued[static_cast<std::size_t>(payload.group)]++;
      g.instances = std::max(g.instances, static_cast<std::int32_t>(info.value) + 1);
    } else {
      static_assert(std::is_same_v<Payload, program::Send> ||
                    std::is_same_v<Payload, program::Recv>);
      constexpr bool is_send = std::is_same_v<Payload, program::Send>;
      info.kind = is_send ? OpKind::send : OpKind::recv;
      if (payload.peer < 0 || payload.peer >= program.world_size) {
        invalid(fmt::format("rank {} op {}: peer {} outside 0..{}", rank, i, payload.peer,
                            program.world_size - 1));
      }
      const std::int32_t other = representative[static_cast<std::size_t>(payload.peer)];
      const std::int32_t sender = is_send ? r : other;
      const std::int32_t receiver = is_send ? other : r;
      const std::uint64_t key =
          (static_cast<std::uint64_t>(static_cast<std::uint32_t>(sender)) << 32) |
          static_cast<std::uint32_t>(receiver);
      auto [it, inserted] = channel_of.emplace(key, static_cast<std::int32_t>(channels.size()));
      if (inserted) channels.push_back(Channel{sender, receiver, {}, {}, {}, {}});
      Channel& c = channels[static_cast<std::size_t>(it->second)];
      auto& list = is_send ? c.send_ops : c.recv_ops;
      info.ref = it->second;
      info.value = static_cast<std::int64_t>(list.size());
      list.push_back(i);
    }
  }

  // ---- running ----------------------------------------------------------------------------

  void on_event(const Event& e) {
    if (e.kind == kComputeDone) {
      RankState& rs = ranks[static_cast<std::size_t>(e.a)];
      StreamState& st = rs.streams[static_cast<std::size_t>(e.b)];
      if (st.version != e.version || st.running < 0) {
        engine.count_stale();
        return;
      }
      const OpIndex i = st.running;
      st.running = -1;
      if (e.b == static_cast<std::int32_t>(program::Stream::compute)) {
        const Time busy = engine.now() - rs.timing[static_cast<std::size_t>(i)].start;
        switch (rs.ops[static_cast<std::size_t>(i)].phase) {
          case program::Phase::forward:
          case program::Phase::backward:
            rs.breakdown.compute += busy;
            break;
          case program::Phase::recompute:
            rs.breakdown.recompute += busy;
            break;
          case program::Phase::optimizer:
            rs.breakdown.optimizer += busy;
            break;
        }
        rs.compute_idle_since = engine.now();
      }
      finish_op(e.a, i);
    } else {
      const Activity& a = activities[static_cast<std::size_t>(e.a)];
      for (std::int32_t p = a.part_begin; p < a.part_end; ++p) {
        const auto [r, i] = activity_parts[static_cast<std::size_t>(p)];
        change_comm_active(r, -1);
        finish_op(r, i);
      }
    }
    drain();
  }

  void on_resource(std::size_t) {
    completed_owners.clear();
    flows.take_completed(completed_owners);
    for (const std::int32_t owner : completed_owners) {
      Activity& a = activities[static_cast<std::size_t>(owner)];
      if (--a.flows_left == 0) {
        engine.schedule(engine.now() + a.latency, Priority::completion, kActivityDone, owner);
      }
    }
  }

  void finish_op(std::int32_t r, OpIndex i) {
    RankState& rs = ranks[static_cast<std::size_t>(r)];
    const OpInfo& info = rs.ops[static_cast<std::size_t>(i)];
    rs.timing[static_cast<std::size_t>(i)].end = engine.now();
    StreamState& st = rs.streams[info.stream];
    ++st.head;
    st.busy = false;
    worklist.emplace_back(r, info.stream);
    const auto b = static_cast<std::size_t>(rs.dependents_begin[static_cast<std::size_t>(i)]);
    const auto e = static_cast<std::size_t>(rs.dependents_begin[static_cast<std::size_t>(i) + 1]);
    for (std::size_t k = b; k < e; ++k) {
      OpInfo& d = rs.ops[static_cast<std::size_t>(rs.dependents[k])];
      if (--d.pending == 0) worklist.emplace_back(r, d.stream);
    }
  }

  void drain() {
    while (!worklist.empty()) {
      const auto [r, s] = worklist.back();
      worklist.pop_back();
      try_advance(r, s);
    }
  }

  void try_advance(std::int32_t r, std::int32_t s) {
    RankState& rs = ranks[static_cast<std::size_t>(r)];
    StreamState& st = rs.streams[static_cast<std::size_t>(s)];
    while (!st.busy && st.head < st.end) {
      const OpIndex i = rs.order[static_cast<std::size_t>(st.head)];
      OpInfo& info = rs.ops[static_cast<std::size_t>(i)];
      if (info.pending > 0) return;
      const Time now = engine.now();
      rs.timing[static_cast<std::size_t>(i)].start = now;
      switch (info.kind) {
        case OpKind::compute:
          start_compute(r, s, i);
          return;
        case OpKind::alloc:
        case OpKind::free:
          apply_memory(rs, info);
          finish_op(r, i);
          break;
        case OpKind::collective:
          st.busy = true;
          collective_ready(r, i);
          return;
        case OpKind::send:
        case OpKind::recv:
          st.busy = true;
          p2p_ready(info);
          return;
      }
    }
  }

  void start_compute(std::int32_t r, std::int32_t s, OpIndex i) {
    RankState& rs = ranks[static_cast<std::size_t>(r)];
    StreamState& st = rs.streams[static_cast<std::size_t>(s)];
    const OpInfo& info = rs.ops[static_cast<std::size_t>(i)];
    const Time now = engine.now();
    if (s == static_cast<std::int32_t>(program::Stream::compute) && now > rs.compute_idle_since) {
      attribute_idle(rs, r, i, now - rs.compute_idle_since);
    }
    st.busy = true;
    st.running = i;
    st.remaining_ps = static_cast<double>(info.value);
    st.since = now;
    st.rate = rs.comm_active > 0 ? slow_rate : 1.0;
    ++st.version;
    const Time end = st.rate == 1.0 ? now + Time::from_ps(info.value)
                                    : now + Time::from_ps(std::llround(st.remaining_ps / st.rate));
    engine.schedule(end, Priority::completion, kComputeDone, r, s, st.version);
  }

  /// While any collective runs on a GPU its kernels progress at 1/(1+slowdown).
  void change_comm_active(std::int32_t r, std::int32_t delta) {
    RankState& rs = ranks[static_cast<std::size_t>(r)];
    const bool was = rs.comm_active > 0;
    rs.comm_active += delta;
    const bool is = rs.comm_active > 0;
    if (was == is || slow_rate == 1.0) return;
    const double rate = is ? slow_rate : 1.0;
    const Time now = engine.now();
    for (std::size_t s = 0; s < rs.streams.size(); ++s) {
      StreamState& st = rs.streams[s];
      if (st.running < 0) continue;
      st.remaining_ps -= static_cast<double>((now - st.since).ps()) * st.rate;
      st.remaining_ps = std::max(0.0, st.remaining_ps);
      st.since = now;
      st.rate = rate;
      ++st.version;
      engine.schedule(now + Time::from_ps(std::llround(st.remaining_ps / rate)),
                      Priority::completion, kComputeDone, r, static_cast<std::int32_t>(s),
                      st.version);
    }
  }

  void apply_memory(RankState& rs, const OpInfo& info) {
    const Bytes size = Bytes::of(info.value);
    if (size.count() == 0) return;
    Bytes& cat = rs.live[static_cast<std::size_t>(info.ref)];
    if (info.kind == OpKind::alloc) {
      cat += size;
      rs.live_total += size;
    } else {
      cat -= size;
      rs.live_total -= size;
    }
    const Time now = engine.now();
    RankMemory& m = rs.memory;
    if (options.record_memory_timeline) {
      if (!m.timeline.empty() && m.timeline.back().at == now) {
        m.timeline.back().live = rs.live;
      } else {
        m.timeline.push_back(MemoryPoint{now, rs.live});
      }
    }
    if (rs.live_total > m.peak) {
      m.peak = rs.live_total;
      m.peak_at = now;
      m.at_peak = rs.live;
    }
  }

  // ---- communication ----------------------------------------------------------------------

  void collective_ready(std::int32_t r, OpIndex i) {
    const OpInfo& info = ranks[static_cast<std::size_t>(r)].ops[static_cast<std::size_t>(i)];
    GroupState& g = groups[static_cast<std::size_t>(info.ref)];
    const auto k = static_cast<std::size_t>(info.value);
    g.participants[k * g.needed.size() + static_cast<std::size_t>(info.aux)] = {r, i};
    if (++g.ready[k] < static_cast<std::int32_t>(g.needed.size())) return;

    const auto [r0, i0] = g.participants[k * g.needed.size()];
    const auto& c = std::get<Collective>(
        program.ranks[static_cast<std::size_t>(r0)].ops[static_cast<std::size_t>(i0)].payload);
    const auto id = static_cast<std::int32_t>(activities.size());
    Activity a;
    a.part_begin = static_cast<std::int32_t>(activity_parts.size());
    for (std::size_t p = 0; p < g.needed.size(); ++p) {
      activity_parts.push_back(g.participants[k * g.needed.size() + p]);
    }
    a.part_end = static_cast<std::int32_t>(activity_parts.size());
    for (const GroupId h : g.launches) {
      const GroupState& hs = groups[static_cast<std::size_t>(h)];
      a.latency = std::max(
          a.latency,
          collective_latency(c.kind, static_cast<std::int64_t>(hs.gpus.size()), hs.nodes, hw));
      flow_specs.clear();
      append_collective_flows(c.kind, c.size, hs.gpus, flow_specs);
      const double efficiency = comm_efficiency(c.size, hs.nodes > 1, hw);
      a.flows_left += start_flows(id, efficiency);
    }
    launch(id, a);
  }

  void p2p_ready(const OpInfo& info) {
    Channel& c = channels[static_cast<std::size_t>(info.ref)];
    const auto k = static_cast<std::size_t>(info.value);
    if (info.kind == OpKind::send) {
      c.send_ready[k] = 1;
      if (k >= c.recv_ready.size() || !c.recv_ready[k]) return;
    } else {
      c.recv_ready[k] = 1;
      if (k >= c.send_ready.size() || !c.send_ready[k]) return;
    }
    const OpIndex send_op = c.send_ops[k];
    const auto& send = std::get<program::Send>(program.ranks[static_cast<std::size_t>(c.sender)]
                                                   .ops[static_cast<std::size_t>(send_op)]
                                                   .payload);
    const Rank src = program.ranks[static_cast<std::size_t>(c.sender)].rank;
    const bool inter = topology.node_of(src) != topology.node_of(send.peer);
    const auto id = static_cast<std::int32_t>(activities.size());
    Activity a;
    a.latency = p2p_latency(inter, hw);
    a.part_begin = static_cast<std::int32_t>(activity_parts.size());
    activity_parts.emplace_back(c.sender, send_op);
    activity_parts.emplace_back(c.receiver, c.recv_ops[k]);
    a.part_end = static_cast<std::int32_t>(activity_parts.size());
    flow_specs.clear();
    if (send.size.count() > 0) {
      flow_specs.push_back({src, send.peer, send.size.as_double()});
      append_p2p_images(c, src, send.peer, send.size.as_double());
    }
    a.flows_left = start_flows(id, comm_efficiency(send.size, inter, hw));
    launch(id, a);
  }

  /// Representative replay: the unrecorded ranks that the sender stands for send too, to
  /// the peer at the same rank offset (the plan's translation symmetry: stage s+1 of a
  /// TP/DP position is the same offset away for every position), when that peer is
  /// represented by the receiver. Their flows share links with the recorded one.
  void append_p2p_images(const Channel& c, Rank src, Rank dst, double bytes) {
    if (program.records_every_rank()) return;
    const auto b = static_cast<std::size_t>(represented_begin[static_cast<std::size_t>(c.sender)]);
    const auto e =
        static_cast<std::size_t>(represented_begin[static_cast<std::size_t>(c.sender) + 1]);
    for (std::size_t k = b; k < e; ++k) {
      const Rank image = represented[k];
      if (image == src) continue;
      const Rank peer = dst + (image - src);
      if (peer < 0 || peer >= program.world_size || peer == image) continue;
      if (representative[static_cast<std::size_t>(peer)] != c.receiver) continue;
      flow_specs.push_back({image, peer, bytes});
    }
  }

  std::int32_t start_flows(std::int32_t owner, double efficiency) {
    std::int32_t started = 0;
    for (const FlowSpec& f : flow_specs) {
      const auto route = topology.route(f.src, f.dst);
      if (route.empty()) continue;  // same GPU: a local copy, not modelled as traffic
      flows.start(route, f.bytes, efficiency * topology.bottleneck(route), owner);
      ++started;
    }
    return started;
  }

  void launch(std::int32_t id, const Activity& a) {
    activities.push_back(a);
    for (std::int32_t p = a.part_begin; p < a.part_end; ++p) {
      change_comm_active(activity_parts[static_cast<std::size_t>(p)].first, +1);
    }
    if (a.flows_left == 0) {
      engine.schedule(engine.now() + a.latency, Priority::completion, kActivityDone, id);
    }
  }

  // ---- accounting -------------------------------------------------------------------------

  /// The op whose end released op `i` (its latest-finishing dependency or its predecessor on
  /// the stream), or -1 when none.
  OpIndex blocker_of(const RankState& rs, std::int32_t r, OpIndex i) const {
    const program::RankProgram& rp = program.ranks[static_cast<std::size_t>(r)];
    OpIndex best = -1;
    Time best_end = Time::zero();
    auto consider = [&](OpIndex j) {
      const Time end = rs.timing[static_cast<std::size_t>(j)].end;
      if (end == kNotRun) return;
      if (best < 0 || end > best_end) {
        best = j;
        best_end = end;
      }
    };
    const OpInfo& info = rs.ops[static_cast<std::size_t>(i)];
    if (info.pos > rs.streams[info.stream].begin) {
      consider(rs.order[static_cast<std::size_t>(info.pos - 1)]);
    }
    for (const OpIndex d : rp.deps(rp.ops[static_cast<std::size_t>(i)]))
      consider(d);
    return best;
  }

  /// Charges an idle stretch of the compute stream to what `waiter` waited on: follow
  /// zero-time memory ops back to a real cause.
  void attribute_idle(RankState& rs, std::int32_t r, OpIndex waiter, Time gap) {
    OpIndex cause = blocker_of(rs, r, waiter);
    for (int depth = 0; depth < 16 && cause >= 0; ++depth) {
      const OpKind k = rs.ops[static_cast<std::size_t>(cause)].kind;
      if (k != OpKind::alloc && k != OpKind::free) break;
      cause = blocker_of(rs, r, cause);
    }
    charge(rs, cause, gap);
  }

  void charge(RankState& rs, OpIndex cause, Time gap) {
    TimeBreakdown& b = rs.breakdown;
    if (cause < 0) {
      b.other += gap;
      return;
    }
    const OpInfo& info = rs.ops[static_cast<std::size_t>(cause)];
    switch (info.kind) {
      case OpKind::collective:
        b.exposed_comm[static_cast<std::size_t>(
            program.groups[static_cast<std::size_t>(info.ref)].kind)] += gap;
        return;
      case OpKind::recv:
        b.bubble += gap;
        return;
      case OpKind::send:
        b.exposed_comm[static_cast<std::size_t>(program::GroupKind::pp)] += gap;
        return;
      default:
        b.other += gap;
        return;
    }
  }

  void close_breakdowns(Time iteration) {
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      RankState& rs = ranks[r];
      OpIndex last = -1;
      Time last_end = Time::zero();
      for (std::size_t i = 0; i < rs.timing.size(); ++i) {
        const Time end = rs.timing[i].end;
        if (end != kNotRun && end >= last_end) {
          last = static_cast<OpIndex>(i);
          last_end = end;
        }
      }
      Time t0 = rs.compute_idle_since;
      if (last >= 0 && last_end > t0) {
        OpIndex cause = last;
        for (int depth = 0; depth < 16 && cause >= 0; ++depth) {
          const OpKind k = rs.ops[static_cast<std::size_t>(cause)].kind;
          if (k != OpKind::alloc && k != OpKind::free) break;
          cause = blocker_of(rs, static_cast<std::int32_t>(r), cause);
        }
        charge(rs, cause, last_end - t0);
        t0 = last_end;
      }
      if (iteration > t0) rs.breakdown.other += iteration - t0;
    }
  }

  std::string group_label(GroupId g) const {
    return fmt::format("{} group {}",
                       program::to_string(program.groups[static_cast<std::size_t>(g)].kind), g);
  }

  void report_stuck(SimulationResult& out) const {
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      const RankState& rs = ranks[r];
      const program::RankProgram& rp = program.ranks[r];
      for (std::size_t s = 0; s < rs.streams.size(); ++s) {
        const StreamState& st = rs.streams[s];
        if (st.head >= st.end) continue;
        const OpIndex i = rs.order[static_cast<std::size_t>(st.head)];
        const OpInfo& info = rs.ops[static_cast<std::size_t>(i)];
        std::string why;
        if (info.pending > 0) {
          std::string deps;
          for (const OpIndex d : rp.deps(rp.ops[static_cast<std::size_t>(i)])) {
            if (rs.timing[static_cast<std::size_t>(d)].end != kNotRun) continue;
            deps += fmt::format("{}{}", deps.empty() ? "" : ", ", d);
          }
          why = fmt::format("waiting for dep op {}", deps);
        } else if (info.kind == OpKind::collective) {
          const GroupState& g = groups[static_cast<std::size_t>(info.ref)];
          const auto k = static_cast<std::size_t>(info.value);
          std::string missing;
          for (const Rank m : g.gpus) {
            const std::int32_t rep = representative[static_cast<std::size_t>(m)];
            const auto slot = static_cast<std::size_t>(
                std::lower_bound(g.needed.begin(), g.needed.end(), rep) - g.needed.begin());
            if (g.participants[k * g.needed.size() + slot].first >= 0) continue;
            missing += fmt::format("{}{}", missing.empty() ? "" : ", ", m);
          }
          why = missing.empty()
                    ? fmt::format("launched on {} but its transfers never finish (zero bandwidth?)",
                                  group_label(info.ref))
                    : fmt::format("waiting for members {} of {} (collective #{} on the group)",
                                  missing, group_label(info.ref), k);
        } else if (info.kind == OpKind::send || info.kind == OpKind::recv) {
          const bool is_send = info.kind == OpKind::send;
          const Rank peer =
              is_send ? std::get<program::Send>(rp.ops[static_cast<std::size_t>(i)].payload).peer
                      : std::get<program::Recv>(rp.ops[static_cast<std::size_t>(i)].payload).peer;
          why = is_send ? fmt::format("waiting for matching recv on rank {}", peer)
                        : fmt::format("waiting for matching send from rank {}", peer);
        } else {
          why = "never started";
        }
        out.stuck.push_back(
            StuckOp{rp.rank, i,
                    fmt::format("{} stream: {}",
                                program::to_string(static_cast<program::Stream>(s)), why)});
      }
    }
  }

  SimulationResult run() {
    if (ran) throw std::logic_error("Simulation::run called twice");
    ran = true;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      for (std::size_t s = 0; s < program::kStreamCount; ++s) {
        worklist.emplace_back(static_cast<std::int32_t>(r), static_cast<std::int32_t>(s));
      }
    }
    // Reverse so that rank 0's compute stream is tried first (the worklist is a stack).
    std::reverse(worklist.begin(), worklist.end());
    drain();
    engine.run(*this);

    SimulationResult out;
    Time iteration = Time::zero();
    for (const RankState& rs : ranks) {
      for (const OpTiming& t : rs.timing) {
        if (t.end != kNotRun) iteration = std::max(iteration, t.end);
      }
    }
    out.iteration_time = iteration;
    close_breakdowns(iteration);
    report_stuck(out);
    out.events_processed = engine.events_processed();
    out.timelines.resize(ranks.size());
    out.memory.reserve(ranks.size());
    out.breakdown.reserve(ranks.size());
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      RankState& rs = ranks[r];
      out.timelines[r].rank = program.ranks[r].rank;
      if (options.record_op_timings) out.timelines[r].ops = std::move(rs.timing);
      out.memory.push_back(std::move(rs.memory));
      out.breakdown.push_back(rs.breakdown);
    }
    return out;
  }
};

Simulation::Simulation(const program::Program& program, const hw::HardwareProfile& hw,
                       ReplayOptions options)
    : state_(std::make_unique<State>(program, hw, options)) {}
Simulation::~Simulation() = default;
Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;

SimulationResult Simulation::run() {
  return state_->run();
}

SimulationResult replay(const program::Program& program, const hw::HardwareProfile& hw,
                        const ReplayOptions& options) {
  return Simulation(program, hw, options).run();
}

}  // namespace trainsim::sim
