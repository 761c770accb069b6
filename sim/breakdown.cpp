#include "sim/breakdown.hpp"

namespace trainsim::sim {

namespace {

using program::OpIndex;

constexpr Time kNotRun = Time::max();
/// Longest chain of memory ops followed back to a real cause.
constexpr int kMaxMemoryHops = 16;

/// The op whose end released op `i` (its latest-finishing dependency or its predecessor on
/// the stream), or -1 when none.
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
  const OpInfo& info = rank.index.ops[static_cast<std::size_t>(i)];
  if (info.pos > rank.index.streams[info.stream].begin) {
    consider(rank.index.order[static_cast<std::size_t>(info.pos - 1)]);
  }
  for (const OpIndex d : rank.program.deps(rank.program.ops[static_cast<std::size_t>(i)]))
    consider(d);
  return best;
}

/// `op` itself, or when it is a memory op (which takes no time), what released it.
OpIndex real_cause(const RankView& rank, OpIndex op) {
  for (int depth = 0; depth < kMaxMemoryHops && op >= 0; ++depth) {
    const OpKind k = rank.index.ops[static_cast<std::size_t>(op)].kind;
    if (k != OpKind::alloc && k != OpKind::free) break;
    op = blocker_of(rank, op);
  }
  return op;
}

void charge(const RankView& rank, const std::vector<program::Group>& groups, OpIndex cause,
            Time gap, TimeBreakdown& b) {
  if (cause < 0) {
    b.other += gap;
    return;
  }
  const OpInfo& info = rank.index.ops[static_cast<std::size_t>(cause)];
  switch (info.kind) {
    case OpKind::collective:
      // A collective that itself waited for a receive (Megatron's pipeline scatter/gather:
      // the TP all-gather of a received chunk): the gap until the receive ended is bubble.
      if (const OpIndex before = real_cause(rank, blocker_of(rank, cause));
          before >= 0 && rank.index.ops[static_cast<std::size_t>(before)].kind == OpKind::recv) {
        const Time gap_end = rank.timing[static_cast<std::size_t>(cause)].end;
        const Time received = rank.timing[static_cast<std::size_t>(before)].end;
        if (gap_end != kNotRun && received != kNotRun && received + gap > gap_end) {
          const Time waiting = std::min(gap, received + gap - gap_end);
          b.bubble += waiting;
          gap -= waiting;
        }
      }
      b.exposed_comm[static_cast<std::size_t>(groups[static_cast<std::size_t>(info.ref)].kind)] +=
          gap;
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

void close_breakdown(const RankView& rank, const std::vector<program::Group>& groups,
                     Time idle_since, Time iteration, TimeBreakdown& b) {
  OpIndex last = -1;
  Time last_end = Time::zero();
  for (std::size_t i = 0; i < rank.timing.size(); ++i) {
    const Time end = rank.timing[i].end;
    if (end != kNotRun && end >= last_end) {
      last = static_cast<OpIndex>(i);
      last_end = end;
    }
  }
  Time t0 = idle_since;
  if (last >= 0 && last_end > t0) {
    charge(rank, groups, real_cause(rank, last), last_end - t0, b);
    t0 = last_end;
  }
  if (iteration > t0) b.other += iteration - t0;
}

}  // namespace trainsim::sim
