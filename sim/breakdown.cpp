#include "sim/breakdown.hpp"

namespace trainsim::sim {

namespace {

using program::OpIndex;

constexpr Time kNotRun = Time::max();
/// Longest chain of memory ops followed back to a real cause.
constexpr int kMaxMemoryHops = 16;

/// The op whose end released op `i` (its latest-finishing dependency or its predecessor on
/// the stream, the first of them in that order on a tie), or -1 when none.
OpIndex blocker_of(const RankView& rank, OpIndex i) {
  OpIndex best = -1;
  Time best_end = Time::zero();
  auto consider = [&](OpIndex j) {
    const Time end = rank.timing[static_cast<std::size_t>(j)].end;
    if (end == kNotRun) return;
    if (best < 0 || end > best_end) {
      best = j;
      best_end = end;
    }
  };
  const Slot slot = rank.index.slot_of[static_cast<std::size_t>(i)];
  const OpInfo& info = rank.index.slots[static_cast<std::size_t>(slot)];
  // An op other than a send or receive starts the instant its last blocker ends (a send's or
  // receive's start is moved to its transfer's), and nothing it waits for ends later: the
  // first candidate ending at its start is the answer, found without reading the rest. The
  // stream predecessor, considered first, usually is it (memory ops, back to back), so the
  // Program's op and dependency list, which miss the cache, are mostly left unread.
  const Time start = rank.timing[static_cast<std::size_t>(i)].start;
  const bool started_when_released =
      start != kNotRun && info.kind != OpKind::send && info.kind != OpKind::recv;
  if (slot > rank.index.streams[info.stream].begin) {
    consider(rank.index.slots[static_cast<std::size_t>(slot) - 1].op);
    if (started_when_released && best >= 0 && best_end == start) return best;
  }
  // A kernel's dependencies are found from its OpInfo, in cache: the Program op is not read.
  const std::span<const OpIndex> deps =
      info.kind == OpKind::compute && info.deps != kManyDeps
          ? std::span<const OpIndex>(rank.program.dep_pool)
                .subspan(static_cast<std::size_t>(info.ref), info.deps)
          : rank.program.deps(rank.program.ops[static_cast<std::size_t>(i)]);
  for (const OpIndex d : deps) {
    consider(d);
    if (started_when_released && best == d && best_end == start) return best;
  }
  return best;
}

/// How far back (in issue order) an op held by its issue looks for the sync that held its
/// host, and a sync for the GPU work it waited for.
constexpr OpIndex kSyncLookBack = 64;

/// The host sync among the ops issued just before op `i`, or -1.
OpIndex host_sync_before(const RankView& rank, OpIndex i) {
  for (OpIndex j = i - 1; j >= 0 && j >= i - kSyncLookBack; --j) {
    if (rank.index.host_cost[static_cast<std::size_t>(j)] == HostCost::sync) return j;
  }
  return -1;
}

/// What host sync `sync` waited for: its latest-finishing dependency (tensor.item()), or, for
/// a device-wide one (torch.cuda.synchronize(), no dependencies listed), the latest-finishing
/// GPU op issued just before it; -1 when none finished.
OpIndex awaited_by(const RankView& rank, OpIndex sync) {
  const OpIndex listed = blocker_of(rank, sync);
  if (listed >= 0) return listed;
  OpIndex best = -1;
  Time best_end = Time::zero();
  for (OpIndex j = sync - 1; j >= 0 && j >= sync - kSyncLookBack; --j) {
    const HostCost c = rank.index.host_cost[static_cast<std::size_t>(j)];
    const Time end = rank.timing[static_cast<std::size_t>(j)].end;
    if (c == HostCost::none || c == HostCost::sync || end == kNotRun) continue;
    if (best < 0 || end > best_end) {
      best = j;
      best_end = end;
    }
  }
  return best;
}

/// `op` itself, or when it takes no GPU time, what released it: a memory op's blocker, or,
/// when it started after that blocker ended because its host was still waiting at a sync
/// (Megatron's synchronize after a pipeline receive), what the host waited for there; a host
/// sync's, the GPU work it waited for. So a pipeline's wait for its peer reads as the bubble
/// it is, not as idle of no cause.
OpIndex real_cause(const RankView& rank, OpIndex op) {
  for (int depth = 0; depth < kMaxMemoryHops && op >= 0; ++depth) {
    const OpKind k = rank.index.info(op).kind;
    if (k == OpKind::host_sync) {
      op = awaited_by(rank, op);
      continue;
    }
    if (k != OpKind::alloc && k != OpKind::free) break;
    const OpIndex blocker = blocker_of(rank, op);
    const Time start = rank.timing[static_cast<std::size_t>(op)].start;
    const Time released =
        blocker >= 0 ? rank.timing[static_cast<std::size_t>(blocker)].end : Time::zero();
    if (start != kNotRun && start > released) {
      // Held by its issue: if the host had been waiting at a sync for GPU work that ended
      // after this op's own blocker, that work held it.
      const OpIndex sync = host_sync_before(rank, op);
      const OpIndex awaited = sync >= 0 ? awaited_by(rank, sync) : -1;
      if (awaited >= 0 && rank.timing[static_cast<std::size_t>(awaited)].end > released) {
        op = awaited;
        continue;
      }
    }
    op = blocker;
  }
  return op;
}

void charge(const RankView& rank, const std::vector<program::Group>& groups, OpIndex cause,
            Time gap, TimeBreakdown& b) {
  // A collective that started after the gap began was itself waiting, until its start, for
  // whatever released it: that part of the gap belongs to that op (the receive of a pipeline
  // scatter/gather's TP all-gather is bubble; a small embedding all-reduce queued behind the
  // data-parallel all-reduce is DP time), followed back a bounded number of hops.
  for (int hop = 0; hop < kMaxMemoryHops && cause >= 0; ++hop) {
    const OpInfo& info = rank.index.info(cause);
    if (info.kind != OpKind::collective) break;
    const OpTiming& t = rank.timing[static_cast<std::size_t>(cause)];
    Time own = gap;
    if (t.start != kNotRun && t.end != kNotRun && t.end - t.start < gap) own = t.end - t.start;
    b.exposed_comm[static_cast<std::size_t>(groups[static_cast<std::size_t>(info.ref)].kind)] +=
        own;
    gap -= own;
    if (gap <= Time::zero()) return;
    cause = real_cause(rank, blocker_of(rank, cause));
  }
  if (cause < 0) {
    b.other += gap;
    return;
  }
  switch (rank.index.info(cause).kind) {
    case OpKind::collective:  // more hops than kMaxMemoryHops: charge the rest to the last
      b.exposed_comm[static_cast<std::size_t>(
          groups[static_cast<std::size_t>(rank.index.info(cause).ref)].kind)] += gap;
      return;
    case OpKind::recv:
    case OpKind::send: {
      // The transfer's running time (its start is when both sides were posted) is exposed
      // pipeline communication; the wait for the peer to post its side before that is bubble
      // (the peer was busy with its own passes). A context-parallel ring's transfer is CP
      // communication, its wait for a peer still in its previous block too (the ring's
      // members run the same blocks: no schedule's bubble).
      const OpTiming& t = rank.timing[static_cast<std::size_t>(cause)];
      const program::Stream stream = rank.program.ops[static_cast<std::size_t>(cause)].stream;
      if (stream == program::Stream::cp_send || stream == program::Stream::cp_recv) {
        b.exposed_comm[static_cast<std::size_t>(program::GroupKind::cp)] += gap;
        return;
      }
      Time own = gap;
      if (t.start != kNotRun && t.end != kNotRun && t.end - t.start < gap) own = t.end - t.start;
      b.exposed_comm[static_cast<std::size_t>(program::GroupKind::pp)] += own;
      b.bubble += gap - own;
      return;
    }
    default:
      b.other += gap;
      return;
  }
}

}  // namespace

void charge_busy(program::Phase phase, Time busy, TimeBreakdown& b) {
  switch (phase) {
    case program::Phase::forward:
    case program::Phase::backward:
      b.compute += busy;
      break;
    case program::Phase::recompute:
      b.recompute += busy;
      break;
    case program::Phase::optimizer:
      b.optimizer += busy;
      break;
  }
}

void charge_idle(const RankView& rank, const std::vector<program::Group>& groups, OpIndex waiter,
                 Time gap, TimeBreakdown& b) {
  charge(rank, groups, real_cause(rank, blocker_of(rank, waiter)), gap, b);
}

LastFinished last_finished(std::span<const OpTiming> timing) {
  LastFinished last;
  for (std::size_t i = 0; i < timing.size(); ++i) {
    const Time end = timing[i].end;
    if (end != kNotRun && end >= last.end) {
      last.op = static_cast<OpIndex>(i);
      last.end = end;
    }
  }
  return last;
}

void close_breakdown(const RankView& rank, const std::vector<program::Group>& groups,
                     Time idle_since, LastFinished last, Time iteration, TimeBreakdown& b) {
  Time t0 = idle_since;
  if (last.op >= 0 && last.end > t0) {
    charge(rank, groups, real_cause(rank, last.op), last.end - t0, b);
    t0 = last.end;
  }
  if (iteration > t0) b.other += iteration - t0;
}

}  // namespace trainsim::sim
