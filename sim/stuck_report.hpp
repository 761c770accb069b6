#pragma once
// The deadlock report (SimulationResult::stuck): for every stream that did not run to its
// end, the op at its head and what it was waiting for.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "models/program.hpp"
#include "sim/comm_launcher.hpp"
#include "sim/program_index.hpp"
#include "sim/simulation_result.hpp"

namespace trainsim::sim {

/// Appends to `out` one StuckOp per unfinished stream of recorded rank `r`. `heads` holds
/// the position in IndexedRank::order of each stream's next op; `timing` the rank's op
/// timings (end == Time::max() for an op that never finished).
void report_stuck(const program::Program& program, const ProgramIndex& index,
                  const CommLauncher& comm, std::int32_t r,
                  const std::array<std::int32_t, program::kStreamCount>& heads,
                  std::span<const OpTiming> timing, program::OpIndex host_waiting,
                  std::vector<StuckOp>& out);

/// The message for a deadlocked replay: "the schedule deadlocked: N ops never ran" and, for
/// each stuck op, its GPU, index, name and what it waited for.
std::string describe_deadlock(const program::Program& program, const SimulationResult& result);

}  // namespace trainsim::sim
