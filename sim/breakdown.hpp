#pragma once
// Where a GPU's iteration went (SimulationResult::breakdown): busy time on the compute
// stream by phase, and each idle stretch of the compute stream charged to the op whose end
// released the next kernel (exposed communication by group kind, pipeline bubble, other);
// when that op is a collective that started inside the stretch, the part before its start is
// charged, in turn, to what released it (a receive: see below; a collective queued ahead on
// its stream: that collective's kind). A pipeline send or receive: its transfer's running time
// is exposed PP communication, the wait before it (for the peer stage to post its side) bubble.

#include <span>
#include <vector>

#include "models/program.hpp"
#include "sim/program_index.hpp"
#include "sim/simulation_result.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

/// What the accounting reads of one recorded rank: its ops, their index and their timings
/// so far (end == Time::max() for an op that has not finished).
struct RankView {
  const program::RankProgram& program;
  const IndexedRank& index;
  std::span<const OpTiming> timing;
};

/// Adds `busy` of a compute-stream kernel of `phase` to the breakdown.
void charge_busy(program::Phase phase, Time busy, TimeBreakdown& b);

/// Charges an idle stretch `gap` of the compute stream to what op `waiter` waited on,
/// following zero-time memory ops back to a real cause, and an op its host issued late
/// because the host waited at a sync (Megatron's synchronize after a pipeline exchange) to the
/// GPU work the host waited for there.
void charge_idle(const RankView& rank, const std::vector<program::Group>& groups,
                 program::OpIndex waiter, Time gap, TimeBreakdown& b);

/// The op of a rank that finished last: the highest index among those ending at the latest
/// time; op -1 (end zero) when none finished.
struct LastFinished {
  program::OpIndex op = -1;
  Time end = Time::zero();
};
LastFinished last_finished(std::span<const OpTiming> timing);

/// Closes a rank's breakdown at the end of the iteration: the stretch from `idle_since`
/// (end of the last compute kernel) to the rank's last op (`last`, from last_finished) is
/// charged to that op, the rest up to `iteration` to other, so the fields add up to
/// `iteration`.
void close_breakdown(const RankView& rank, const std::vector<program::Group>& groups,
                     Time idle_since, LastFinished last, Time iteration, TimeBreakdown& b);

}  // namespace trainsim::sim
