#include "sim/replay.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "models/parallel_for.hpp"
#include "sim/breakdown.hpp"
#include "sim/comm_launcher.hpp"
#include "sim/engine.hpp"
#include "sim/flow_network.hpp"
#include "sim/node_fold.hpp"
#include "sim/program_index.hpp"
#include "sim/replay_world.hpp"
#include "sim/stuck_report.hpp"
#include "sim/topology.hpp"

namespace trainsim::sim {

namespace {

using program::OpIndex;

/// Event kinds dispatched by Simulation::State::on_event.
enum EventKind : std::int32_t {
  kComputeDone = 0,
  kActivityDone = 1,
  kHostIssued = 2,  ///< a stream's head op has been issued by its host: try the stream again
  kHostReached = 3  ///< a host reached a HostSync it waits at
};

constexpr Time kNotRun = Time::max();
/// How far ahead of a stream's head its OpInfo is prefetched: 3 slots (72 bytes) reach the
/// next cache line whatever the head's place in its own.
constexpr std::int32_t kPrefetchSlots = 3;

struct StreamState {
  Slot head = 0;  ///< slot (IndexedRank::slots) of the next op
  std::int32_t end = 0;
  bool busy = false;
  // The compute op in progress, as remaining full-speed work and a rate, so a slowdown
  // starting or ending mid-kernel is exact.
  Slot running = -1;  ///< its slot
  double remaining_ps = 0.0;
  Time since;
  double rate = 1.0;
  std::uint32_t version = 0;
  // Waiting for the host (host model only): the head op was ready but not yet issued.
  bool host_wait = false;   ///< waiting (for the host to reach the op, or a kHostIssued event)
  bool host_woken = false;  ///< a kHostIssued event is due for the head
  Time ready_since;         ///< when the head op became ready to start (dependencies met)
};

/// The CPU thread issuing one recorded rank's ops, in program order (hw::HostSpec). It runs
/// ahead of the GPU, writing each op's issue time into its OpTiming::start, up to a HostSync
/// it waits at; the issue times up to there do not depend on the GPU, so they are written in
/// one pass, and only a wait is an event.
struct HostState {
  program::OpIndex next = 0;          ///< next op to issue
  Time clock;                         ///< when the host is free to issue `next`
  Slot waiting = -1;                  ///< the HostSync (slot) it waits at, or -1
  Time waiting_since;                 ///< when it reached that sync
  Time issuing_since;                 ///< start of the present stretch of issuing
  std::uint32_t streams_waiting = 0;  ///< bit s: stream s's head waits to be issued
};

/// What changes on one recorded rank while the replay runs.
struct RankState {
  std::array<StreamState, program::kStreamCount> streams{};
  std::vector<OpTiming> timing;
  MemoryByCategory live{};
  Bytes live_total;
  Time instant = Time::zero();          ///< when memory last changed
  program::OpIndex instant_alloc = -1;  ///< the last allocation at `instant`
  RankMemory memory;
  std::int32_t comm_active = 0;   ///< activities in progress on this GPU
  std::int32_t computing = 0;     ///< compute ops in progress on this GPU
  bool engine_throttled = false;  ///< its communication engines run at the computing rate
  bool engine_touched = false;    ///< `computing` changed in the present event
  Time compute_idle_since;
  TimeBreakdown breakdown;
  HostState host;
  std::vector<HostSpan> host_spans;
  /// One hardware queue (host.device_max_connections 1): the next GPU op, in issue order, the
  /// GPU may start; -1 when the streams are independent.
  program::OpIndex queue_next = -1;
  /// The last op of the batched p2p call the queue dispatched last: NCCL launches a call's
  /// sends and receives as one group, so they start as their own streams allow once it is.
  program::OpIndex batch_end = -1;
};

/// GPU 0's communication-engine link (GPU g's is this + g), or -1 when transfers do not slow
/// down under compute and the network has no engine links.
LinkId first_engine_link(const Topology& topology, const hw::HardwareProfile& hw) {
  return hw.comm_slowdown_during_compute > 0.0 ? static_cast<LinkId>(topology.link_count()) : -1;
}

/// The flow network's links: the topology's, then, when communication slows down under
/// compute, one communication engine per GPU (see CommLauncher) whose capacity the replay
/// lowers while the GPU computes. Idle, an engine runs at the GPU's fabric bandwidth, so it
/// never limits a transfer more than the GPU's own fabric link does.
std::vector<double> network_capacities(const Topology& topology, const hw::HardwareProfile& hw) {
  std::vector<double> caps = topology.link_capacities();
  if (first_engine_link(topology, hw) >= 0) {
    caps.insert(caps.end(), static_cast<std::size_t>(topology.gpu_count()),
                hw.node.gpu_bandwidth.bytes_per_second());
  }
  return caps;
}

}  // namespace

/// The event loop: streams advance when their head op's dependencies are done; compute ops
/// take their modelled time (stretched while communication shares the GPU), memory ops are
/// instantaneous, communication ops wait for the CommLauncher's activity.
struct Simulation::State {
  const program::Program& program;
  const hw::HardwareProfile& hw;
  ReplayOptions options;
  Engine engine;
  ReplayWorld* shared_world;             ///< the caller's, or null
  std::optional<Topology> own_topology;  ///< without a shared world
  Topology& topology;
  FlowNetwork flows;
  ProgramIndex index;
  NodeFold fold;  ///< inactive unless options.fold_nodes and the replay is symmetric
  CommLauncher comm;
  std::vector<RankState> ranks;
  std::vector<std::pair<std::int32_t, std::int32_t>> worklist;  ///< (rank index, stream)
  std::vector<FlowNetwork::Completed> completed_flows;
  double slow_rate = 1.0;
  LinkId engine_base = -1;  ///< first communication-engine link; -1 when there are none
  double engine_idle = 0.0;
  double engine_busy = 0.0;
  std::vector<std::int32_t> engine_touched;  ///< recorded ranks whose `computing` changed
  /// With an active fold: per recorded rank, the GPUs it stands for in kept nodes (the
  /// engines of the others carry no flow).
  std::vector<std::vector<program::Rank>> kept_engines;
  /// The host model (hw.host): issue cost per HostCost (in ps) and the syncs it waits at.
  bool host_model = false;
  std::array<std::int64_t, static_cast<std::size_t>(HostCost::sync) + 1> host_cost_ps{};
  std::int64_t sync_latency_ps = 0;
  bool single_queue = false;  ///< host.device_max_connections == 1
  bool ran = false;
  /// Progress (options.progress): ops finished, ops in all, the count at which to report next
  /// (0, never reached, without a listener).
  std::size_t ops_finished = 0;
  std::size_t ops_total = 0;
  std::size_t next_report = 0;

  State(const program::Program& p, const hw::HardwareProfile& h, ReplayOptions o,
        ReplayWorld* world)
      : program(p),
        hw(h),
        options(o),
        shared_world(world),
        own_topology(world ? std::nullopt
                           : std::optional<Topology>(std::in_place, h,
                                                     std::max<std::int32_t>(1, p.world_size))),
        topology(world ? world->topology() : *own_topology),
        flows(network_capacities(topology, h)),
        index(world ? index_program(p, *world) : index_program(p, h, topology)),
        fold(o.fold_nodes ? NodeFold(p, index, topology, h, first_engine_link(topology, h))
                          : NodeFold()),
        comm(p, h, index, topology, flows, first_engine_link(topology, h), &fold,
             world ? world->group_plans(PlanKey{world->groups_kept(), fold.run(), fold.period(),
                                                first_engine_link(topology, h)})
                   : nullptr),
        engine_base(first_engine_link(topology, h)) {
    if (!options.kernel_slowdowns.empty()) apply_kernel_slowdowns(index, options.kernel_slowdowns);
    if (engine_base >= 0) {
      engine_idle = h.node.gpu_bandwidth.bytes_per_second();
      engine_busy = engine_idle / (1.0 + h.comm_slowdown_during_compute);
    }
    if (engine_base >= 0 && fold.active()) {
      for (std::size_t r = 0; r < index.ranks.size(); ++r)
        kept_engines.push_back(fold.kept(index.represented_by(static_cast<std::int32_t>(r))));
    }
    engine.add_resource(flows);
    slow_rate = 1.0 / (1.0 + std::max(0.0, hw.compute_slowdown_during_comm));
    if (hw.host) {
      host_model = true;
      host_cost_ps[static_cast<std::size_t>(HostCost::gemm)] = hw.host->gemm.ps();
      host_cost_ps[static_cast<std::size_t>(HostCost::kernel)] = hw.host->kernel.ps();
      host_cost_ps[static_cast<std::size_t>(HostCost::collective)] = hw.host->collective.ps();
      host_cost_ps[static_cast<std::size_t>(HostCost::p2p)] = hw.host->p2p.ps();
      sync_latency_ps = hw.host->sync_latency.ps();
      single_queue = hw.host->device_max_connections == 1;
    }
    ranks.resize(index.ranks.size());
    if (options.progress) {
      for (const IndexedRank& ir : index.ranks)
        ops_total += ir.slots.size();
      next_report = report_step();
    }
    // In parallel: filling the per-op timings first touches their pages.
    for_each_in_parallel(ranks.size(), [this](std::size_t r) {
      const IndexedRank& ir = index.ranks[r];
      RankState& rs = ranks[r];
      rs.timing.assign(ir.slots.size(), OpTiming{kNotRun, kNotRun});
      rs.memory.rank = program.ranks[r].rank;
      for (std::size_t s = 0; s < program::kStreamCount; ++s) {
        rs.streams[s].head = ir.streams[s].begin;
        rs.streams[s].end = ir.streams[s].end;
      }
      if (hw.host && hw.host->device_max_connections == 1) rs.queue_next = next_gpu_op(ir, 0);
      // Without a host model no host waits: its syncs are passed over.
      if (!hw.host) {
        StreamState& host = rs.streams[static_cast<std::size_t>(program::Stream::host)];
        host.head = host.end;
      }
    });
  }

  RankView view(std::int32_t r) const {
    return RankView{program.ranks[static_cast<std::size_t>(r)],
                    index.ranks[static_cast<std::size_t>(r)],
                    ranks[static_cast<std::size_t>(r)].timing};
  }

  // ---- events -----------------------------------------------------------------------------

  void on_event(const Event& e) {
    if (e.kind == kHostIssued) {
      StreamState& st = ranks[static_cast<std::size_t>(e.a)].streams[static_cast<std::size_t>(e.b)];
      st.host_woken = false;
      worklist.emplace_back(e.a, e.b);
    } else if (e.kind == kHostReached) {
      host_try_resume(e.a);
    } else if (e.kind == kComputeDone) {
      RankState& rs = ranks[static_cast<std::size_t>(e.a)];
      StreamState& st = rs.streams[static_cast<std::size_t>(e.b)];
      if (st.version != e.version || st.running < 0) {
        engine.count_stale();
        return;
      }
      const Slot slot = st.running;
      st.running = -1;
      note_computing(e.a, -1);
      if (e.b == static_cast<std::int32_t>(program::Stream::compute)) {
        const OpInfo& info =
            index.ranks[static_cast<std::size_t>(e.a)].slots[static_cast<std::size_t>(slot)];
        const Time busy = engine.now() - rs.timing[static_cast<std::size_t>(info.op)].start;
        charge_busy(info.phase, busy, rs.breakdown);
        rs.compute_idle_since = engine.now();
      }
      finish_op(e.a, slot);
    } else {
      const bool sm_driven = !comm.activity(e.a).copy_engine;
      for (const auto& [r, i] : comm.participants(e.a)) {
        if (sm_driven) change_comm_active(r, -1);
        finish_op(r, index.ranks[static_cast<std::size_t>(r)].slot_of[static_cast<std::size_t>(i)]);
      }
    }
    drain();
    apply_engines();
  }

  void on_resource(std::size_t) {
    completed_flows.clear();
    flows.take_completed(completed_flows);
    for (const FlowNetwork::Completed& done : completed_flows) {
      if (comm.flow_finished(done.owner, done.images)) {
        engine.schedule(engine.now() + comm.activity(done.owner).latency, Priority::completion,
                        kActivityDone, done.owner);
      }
    }
  }

  // ---- streams ----------------------------------------------------------------------------

  std::size_t report_step() const { return std::max<std::size_t>(1, ops_total / 200); }

  /// Ends the op in `slot` of recorded rank `r`, the head of its stream.
  /// `requeue`: try the op's stream again (false where its caller goes on with that stream).
  void finish_op(std::int32_t r, Slot slot, bool requeue = true) {
    if (++ops_finished == next_report) {
      options.progress("replay", ops_finished, ops_total);
      next_report += report_step();
    }
    RankState& rs = ranks[static_cast<std::size_t>(r)];
    IndexedRank& ir = index.ranks[static_cast<std::size_t>(r)];
    const OpInfo& info = ir.slots[static_cast<std::size_t>(slot)];
    rs.timing[static_cast<std::size_t>(info.op)].end = engine.now();
    StreamState& st = rs.streams[info.stream];
    ++st.head;
    st.busy = false;
    // The stream walks its slots in order, one of 320 such walks interleaved on the largest
    // rows: fetch the line after the head's ahead of time (a slot is 24 bytes), so the head's
    // OpInfo is in cache when the stream next advances, often after a whole kernel.
    if (st.head + kPrefetchSlots < st.end) {
      __builtin_prefetch(&ir.slots[static_cast<std::size_t>(st.head + kPrefetchSlots)]);
    }
    if (requeue) worklist.emplace_back(r, info.stream);
    for (const Slot dependent : ir.dependents_of(slot)) {
      OpInfo& d = ir.slots[static_cast<std::size_t>(dependent)];
      if (--d.pending == 0) worklist.emplace_back(r, d.stream);
    }
    if (rs.host.waiting >= 0 && engine.now() >= rs.host.waiting_since) host_try_resume(r);
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
    const IndexedRank& ir = index.ranks[static_cast<std::size_t>(r)];
    StreamState& st = rs.streams[static_cast<std::size_t>(s)];
    if (s == static_cast<std::int32_t>(program::Stream::host)) return;  // the host's, not a GPU's
    while (!st.busy && st.head < st.end) {
      const Slot slot = st.head;
      const OpInfo& info = ir.slots[static_cast<std::size_t>(slot)];
      if (info.pending > 0) return;
      Time& start = rs.timing[static_cast<std::size_t>(info.op)].start;
      if (host_model && !issued_by_now(r, s, st, start)) return;
      const bool gpu_op = info.kind != OpKind::alloc && info.kind != OpKind::free;
      // One queue: an op starts in issue order, or went with its batched call (<= batch_end).
      if (single_queue && gpu_op && info.op > rs.batch_end) {
        if (info.op != rs.queue_next) return;  // an op issued earlier is not started yet
        advance_queue(r, info.kind == OpKind::send || info.kind == OpKind::recv);
      }
      start = engine.now();
      if (info.kind != OpKind::compute) st.host_wait = false;
      switch (info.kind) {
        case OpKind::compute:
          start_compute(r, s, slot);
          return;
        case OpKind::alloc:
        case OpKind::free:
          apply_memory(rs, info);
          finish_op(r, slot, false);  // this loop goes on with the stream
          break;
        case OpKind::collective:
          st.busy = true;
          launch(comm.collective_ready(r, info), false);
          return;
        case OpKind::send:
        case OpKind::recv:
          st.busy = true;
          launch(comm.p2p_ready(info), true);
          return;
        case OpKind::host_sync:  // on the host stream, which never gets here
          return;
      }
    }
  }

  /// One hardware queue: the op at its head has started; the next GPU op in issue order is now
  /// at its head, and its stream is tried again.
  void advance_queue(std::int32_t r, bool p2p) {
    RankState& rs = ranks[static_cast<std::size_t>(r)];
    const IndexedRank& ir = index.ranks[static_cast<std::size_t>(r)];
    program::OpIndex next = next_gpu_op(ir, rs.queue_next + 1);
    if (p2p) {
      // The rest of the call (the transfers up to the next other GPU op) went with it: wake
      // their streams, and move the queue past them.
      while (next >= 0 && ir.host_cost[static_cast<std::size_t>(next)] == HostCost::p2p) {
        rs.batch_end = next;
        worklist.emplace_back(r, ir.info(next).stream);
        next = next_gpu_op(ir, next + 1);
      }
    }
    rs.queue_next = next;
    if (rs.queue_next >= 0) worklist.emplace_back(r, ir.info(rs.queue_next).stream);
  }

  /// The first op from `from` on (program order) that the GPU runs (a kernel, GEMM,
  /// collective or transfer), or -1.
  static program::OpIndex next_gpu_op(const IndexedRank& ir, program::OpIndex from) {
    const auto n = static_cast<program::OpIndex>(ir.host_cost.size());
    for (program::OpIndex i = from; i < n; ++i) {
      const HostCost c = ir.host_cost[static_cast<std::size_t>(i)];
      if (c != HostCost::none && c != HostCost::sync) return i;
    }
    return -1;
  }

  /// Host model: whether the head op (whose OpTiming::start holds its issue time once the host
  /// issued it) may start now. If not, the stream waits: for a kHostIssued event at its issue
  /// time, or for the host to reach it (host_issue then schedules that event).
  bool issued_by_now(std::int32_t r, std::int32_t s, StreamState& st, Time issue) {
    const Time now = engine.now();
    if (issue <= now) return true;  // kNotRun (not issued) is Time::max()
    if (!st.host_wait) {
      st.host_wait = true;
      st.ready_since = now;
    }
    if (issue == kNotRun) {
      ranks[static_cast<std::size_t>(r)].host.streams_waiting |= 1u << s;
    } else if (!st.host_woken) {
      st.host_woken = true;
      engine.schedule(issue, Priority::completion, kHostIssued, r, s);
    }
    return false;
  }

  void start_compute(std::int32_t r, std::int32_t s, Slot slot) {
    RankState& rs = ranks[static_cast<std::size_t>(r)];
    StreamState& st = rs.streams[static_cast<std::size_t>(s)];
    const OpInfo& info =
        index.ranks[static_cast<std::size_t>(r)].slots[static_cast<std::size_t>(slot)];
    const Time now = engine.now();
    if (s == static_cast<std::int32_t>(program::Stream::compute) && now > rs.compute_idle_since) {
      // Idle since the last kernel: first for what released this one, then, from the moment
      // it was ready, for its host to issue it.
      Time released = now;
      if (st.host_wait) released = std::max(rs.compute_idle_since, st.ready_since);
      if (released > rs.compute_idle_since) {
        charge_idle(view(r), program.groups, info.op, released - rs.compute_idle_since,
                    rs.breakdown);
      }
      rs.breakdown.host += now - released;
    }
    st.host_wait = false;
    st.busy = true;
    st.running = slot;
    note_computing(r, +1);
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

  void note_computing(std::int32_t r, std::int32_t delta) {
    if (engine_base < 0) return;
    RankState& rs = ranks[static_cast<std::size_t>(r)];
    rs.computing += delta;
    if (!rs.engine_touched) {
      rs.engine_touched = true;
      engine_touched.push_back(r);
    }
  }

  /// Once the present event has settled (a kernel ending and the next starting at the same
  /// instant is no change), throttles the communication engines of the GPUs whose compute
  /// state changed: those of every GPU the recorded rank stands for. With a fold, those in
  /// kept nodes, unless side flows inside nodes are in flight: they may cross any GPU's engine,
  /// so when they start, every engine is brought up to date, and kept so while they run.
  void apply_engines() {
    const bool every_gpu = kept_engines.empty() || comm.side_in_flight();
    for (const std::int32_t r : engine_touched) {
      RankState& rs = ranks[static_cast<std::size_t>(r)];
      rs.engine_touched = false;
      const bool busy = rs.computing > 0;
      if (busy == rs.engine_throttled) continue;
      rs.engine_throttled = busy;
      flows.set_capacities(
          engine_base,
          every_gpu ? index.represented_by(r)
                    : std::span<const program::Rank>(kept_engines[static_cast<std::size_t>(r)]),
          busy ? engine_busy : engine_idle);
    }
    engine_touched.clear();
    if (comm.take_side_started() && !kept_engines.empty()) {
      for (std::size_t r = 0; r < ranks.size(); ++r) {
        flows.set_capacities(engine_base, index.represented_by(static_cast<std::int32_t>(r)),
                             ranks[r].engine_throttled ? engine_busy : engine_idle);
      }
    }
  }

  /// An activity the launcher started (id >= 0; -1 means still waiting for its peers): its
  /// GPUs are communicating until it ends. `p2p`: a send/receive pair (else a collective;
  /// an activity's participants are all of one sort, so no op is looked up to tell).
  void launch(std::int32_t id, bool p2p) {
    if (id < 0) return;
    // Copy-engine transfers take no SMs: compute runs at full rate beside them.
    const bool sm_driven = !comm.activity(id).copy_engine;
    for (const Participant& p : comm.participants(id)) {
      if (sm_driven) change_comm_active(p.first, +1);
      // A send's or receive's start is when the transfer began, both sides being posted: the
      // breakdown tells the transfer's running time from the wait for the peer by it, and the
      // trace shows the transfer (the pp_send and pp_recv streams post ahead of it).
      if (p2p)
        ranks[static_cast<std::size_t>(p.first)].timing[static_cast<std::size_t>(p.second)].start =
            engine.now();
    }
    const Activity& a = comm.activity(id);
    if (a.flows_left == 0) {
      engine.schedule(engine.now() + a.latency, Priority::completion, kActivityDone, id);
    }
  }

  // ---- the host (hw.host) --------------------------------------------------------------------

  /// Issues ops from host.next on, from host.clock, until a HostSync it waits at (or the end);
  /// wakes the streams whose head it issued. The issue times do not depend on the GPU until
  /// that sync, so they are written in one pass; reaching the sync is an event.
  void host_issue(std::int32_t r) {
    if (issue_until_sync(r)) schedule_reached(r);
    wake_issued_streams(r);
  }

  /// The host of rank `r` stopped at a sync it waits at: it gets there at host.waiting_since
  /// (host_try_resume then checks the GPU).
  void schedule_reached(std::int32_t r) {
    engine.schedule(ranks[static_cast<std::size_t>(r)].host.waiting_since, Priority::completion,
                    kHostReached, r);
  }

  /// The host's pass of host_issue, touching only rank `r`'s own state (so the ranks' first
  /// passes, one op list each, run on all cores): true when it stopped at a sync it waits at.
  bool issue_until_sync(std::int32_t r) {
    RankState& rs = ranks[static_cast<std::size_t>(r)];
    const IndexedRank& ir = index.ranks[static_cast<std::size_t>(r)];
    HostState& h = rs.host;
    const auto n = static_cast<program::OpIndex>(ir.host_cost.size());
    std::int64_t clock = h.clock.ps();
    bool waits = false;
    while (h.next < n) {
      const HostCost cost = ir.host_cost[static_cast<std::size_t>(h.next)];
      if (cost == HostCost::sync) {
        const Slot slot = ir.slot_of[static_cast<std::size_t>(h.next)];
        const OpInfo& info = ir.slots[static_cast<std::size_t>(slot)];
        const auto point = static_cast<program::SyncPoint>(info.value & 0xff);
        if (hw.host->waits_at(point)) {
          h.waiting = slot;
          h.waiting_since = Time::from_ps(clock);
          waits = true;
          break;
        }
        ++rs.streams[static_cast<std::size_t>(program::Stream::host)].head;  // passed over
      } else {
        clock += host_cost_ps[static_cast<std::size_t>(cost)];
        rs.timing[static_cast<std::size_t>(h.next)].start = Time::from_ps(clock);
      }
      ++h.next;
    }
    h.clock = Time::from_ps(clock);
    if (options.record_op_timings && h.clock > h.issuing_since)
      rs.host_spans.push_back(HostSpan{h.issuing_since, h.clock, -1});
    return waits;
  }

  /// Streams of rank `r` whose head was not yet issued: woken at its issue time, if the host
  /// has issued it now.
  void wake_issued_streams(std::int32_t r) {
    RankState& rs = ranks[static_cast<std::size_t>(r)];
    const IndexedRank& ir = index.ranks[static_cast<std::size_t>(r)];
    HostState& h = rs.host;
    for (std::uint32_t waiting = h.streams_waiting; waiting != 0; waiting &= waiting - 1) {
      const auto s = static_cast<std::int32_t>(std::countr_zero(waiting));
      StreamState& st = rs.streams[static_cast<std::size_t>(s)];
      if (st.head >= st.end) continue;
      const OpInfo& head = ir.slots[static_cast<std::size_t>(st.head)];
      const Time issue = rs.timing[static_cast<std::size_t>(head.op)].start;
      if (issue == kNotRun) continue;
      h.streams_waiting &= ~(1u << s);
      if (!st.host_woken) {
        st.host_woken = true;
        engine.schedule(std::max(issue, engine.now()), Priority::completion, kHostIssued, r, s);
      }
    }
  }

  /// Whether the GPU of rank `r` has done what the host's sync waits for: the ops issued
  /// before it on the compute stream (every stream for a device-wide sync) and the sync's
  /// dependencies.
  bool sync_met(std::int32_t r, Slot slot) const {
    const RankState& rs = ranks[static_cast<std::size_t>(r)];
    const IndexedRank& ir = index.ranks[static_cast<std::size_t>(r)];
    const OpInfo& info = ir.slots[static_cast<std::size_t>(slot)];
    const auto& frontier = ir.sync_frontiers[static_cast<std::size_t>(
        slot - ir.streams[static_cast<std::size_t>(program::Stream::host)].begin)];
    const bool device = (info.value & 0x100) != 0;
    for (std::size_t s = 0; s < program::kStreamCount; ++s) {
      if (s == static_cast<std::size_t>(program::Stream::host)) continue;
      if (!device && s != static_cast<std::size_t>(program::Stream::compute)) continue;
      if (rs.streams[s].head - ir.streams[s].begin < frontier[s]) return false;
    }
    const program::RankProgram& rp = program.ranks[static_cast<std::size_t>(r)];
    for (const OpIndex d : rp.deps(rp.ops[static_cast<std::size_t>(info.op)])) {
      if (rs.timing[static_cast<std::size_t>(d)].end == kNotRun) return false;
    }
    return true;
  }

  /// Resumes the host of rank `r` if its GPU has done what the sync waits for.
  void host_try_resume(std::int32_t r) {
    RankState& rs = ranks[static_cast<std::size_t>(r)];
    HostState& h = rs.host;
    if (h.waiting < 0 || engine.now() < h.waiting_since || !sync_met(r, h.waiting)) return;
    const Time now = engine.now();
    if (options.record_op_timings) {
      const OpIndex sync =
          index.ranks[static_cast<std::size_t>(r)].slots[static_cast<std::size_t>(h.waiting)].op;
      rs.host_spans.push_back(HostSpan{h.waiting_since, now, sync});
    }
    h.waiting = -1;
    h.clock = now + Time::from_ps(sync_latency_ps);
    h.issuing_since = now;
    ++h.next;
    rs.streams[static_cast<std::size_t>(program::Stream::host)].head++;
    host_issue(r);
  }

  void apply_memory(RankState& rs, const OpInfo& info) {
    const Bytes size = Bytes::of(info.value);
    if (size.count() == 0) return;
    const Time now = engine.now();
    if (now != rs.instant) {
      commit_peak(rs);
      rs.instant = now;
      rs.instant_alloc = -1;
    }
    Bytes& cat = rs.live[static_cast<std::size_t>(info.ref)];
    if (info.kind == OpKind::alloc) {
      cat += size;
      rs.live_total += size;
    } else {
      cat -= size;
      rs.live_total -= size;
    }
    RankMemory& m = rs.memory;
    if (info.kind == OpKind::alloc) rs.instant_alloc = info.op;
    if (options.record_memory_timeline) {
      if (!m.timeline.empty() && m.timeline.back().at == now) {
        m.timeline.back().live = rs.live;
      } else {
        m.timeline.push_back(MemoryPoint{now, rs.live});
      }
    }
  }

  /// The peak counts what is live once an instant's allocations and frees have all happened:
  /// their order within the instant is the event queue's, not the GPU's, and a free landing at
  /// the same instant as an allocation must not count twice.
  void commit_peak(RankState& rs) {
    RankMemory& m = rs.memory;
    if (rs.live_total > m.peak) {
      m.peak = rs.live_total;
      m.peak_at = rs.instant;
      m.at_peak = rs.live;
      m.peak_op = rs.instant_alloc;
    }
  }

  // ---- the run ----------------------------------------------------------------------------

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
    if (host_model) {
      // Every host's first stretch of issuing, up to its first wait, is its own business: in
      // parallel (a pass over each rank's op list); then the waits become events in rank order.
      std::vector<std::uint8_t> waits(ranks.size(), 0);
      for_each_in_parallel(ranks.size(), [&](std::size_t r) {
        waits[r] = issue_until_sync(static_cast<std::int32_t>(r)) ? 1 : 0;
      });
      for (std::size_t r = 0; r < ranks.size(); ++r) {
        if (waits[r] != 0) schedule_reached(static_cast<std::int32_t>(r));
      }
    }
    if (options.progress) options.progress("replay", 0, ops_total);
    drain();
    apply_engines();
    engine.run(*this);
    if (options.progress && ops_finished == ops_total) {
      options.progress("replay", ops_total, ops_total);
    }

    SimulationResult out;
    // The per-rank passes over every op's timing (~10 M ops on the largest rows) run after
    // the event loop, which has one core: they share the machine's cores, each rank's
    // results in its own slot.
    std::vector<LastFinished> last(ranks.size());
    for_each_in_parallel(ranks.size(),
                         [&](std::size_t r) { last[r] = last_finished(ranks[r].timing); });
    Time iteration = Time::zero();
    for (const LastFinished& l : last)
      iteration = std::max(iteration, l.end);
    out.iteration_time = iteration;
    for_each_in_parallel(ranks.size(), [&](std::size_t r) {
      RankState& rs = ranks[r];
      close_breakdown(view(static_cast<std::int32_t>(r)), program.groups, rs.compute_idle_since,
                      last[r], iteration, rs.breakdown);
      commit_peak(rs);
    });
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      const RankState& rs = ranks[r];
      std::array<std::int32_t, program::kStreamCount> heads{};
      for (std::size_t s = 0; s < program::kStreamCount; ++s)
        heads[s] = rs.streams[s].head;
      const OpIndex host_waiting =
          rs.host.waiting < 0 ? -1
                              : index.ranks[r].slots[static_cast<std::size_t>(rs.host.waiting)].op;
      report_stuck(program, index, comm, static_cast<std::int32_t>(r), heads, rs.timing,
                   host_waiting, out.stuck);
    }
    if (host_model && !out.stuck.empty()) {
      // An op the host issued but that never ran still holds its issue time.
      for (RankState& rs : ranks) {
        for (OpTiming& t : rs.timing) {
          if (t.end == kNotRun) t.start = kNotRun;
        }
      }
    }
    out.events_processed = engine.events_processed();
    out.fold_run = fold.run();
    out.timelines.resize(ranks.size());
    out.memory.reserve(ranks.size());
    out.breakdown.reserve(ranks.size());
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      RankState& rs = ranks[r];
      out.timelines[r].rank = program.ranks[r].rank;
      out.timelines[r].finished = last[r].end;
      out.tensor_core_flops.push_back(index.ranks[r].tensor_core_flops);
      if (options.record_op_timings) {
        out.timelines[r].ops = std::move(rs.timing);
        out.timelines[r].host = std::move(rs.host_spans);
      }
      out.memory.push_back(std::move(rs.memory));
      out.breakdown.push_back(rs.breakdown);
    }
    return out;
  }
};

Simulation::Simulation(const program::Program& program, const hw::HardwareProfile& hw,
                       ReplayOptions options)
    : state_(std::make_unique<State>(program, hw, options, nullptr)) {}
Simulation::Simulation(const program::Program& program, ReplayWorld& world, ReplayOptions options)
    : state_(std::make_unique<State>(program, world.hardware(), options, &world)) {}
Simulation::~Simulation() = default;
Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;

SimulationResult Simulation::run() {
  try {
    return state_->run();
  } catch (const FoldBroken&) {
    // A side launch met folded flows (sim/node_fold.hpp; rare: runs with large rooted
    // collectives are not folded): the same replay unfolded, exact the slow way.
    ReplayOptions unfolded = state_->options;
    unfolded.fold_nodes = false;
    const program::Program& program = state_->program;
    const hw::HardwareProfile& hw = state_->hw;
    state_ = std::make_unique<State>(program, hw, std::move(unfolded), state_->shared_world);
    return state_->run();
  }
}

SimulationResult replay(const program::Program& program, const hw::HardwareProfile& hw,
                        const ReplayOptions& options) {
  Simulation simulation(program, hw, options);
  SimulationResult result = simulation.run();
  if (options.keep_state_until_exit) {
    // A raw pointer, never deleted (see ReplayOptions::keep_state_until_exit): a static
    // container's destructor would free it at exit after all.
    static auto* const kept = new std::vector<Simulation>();
    kept->push_back(std::move(simulation));
  }
  return result;
}

SimulationResult replay(const program::Program& program, ReplayWorld& world,
                        const ReplayOptions& options) {
  return Simulation(program, world, options).run();
}

}  // namespace trainsim::sim
