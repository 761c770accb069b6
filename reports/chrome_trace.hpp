#pragma once
// Chrome/Perfetto trace of a replay (chrome://tracing, ui.perfetto.dev): one process per
// GPU, one thread per stream, one complete event per op, and a memory counter track.

#include <ostream>
#include <vector>

#include "models/program.hpp"
#include "sim/simulation_result.hpp"

namespace trainsim::reports {

struct ChromeTraceOptions {
  /// The GPUs written, among those the Program recorded; empty: every recorded GPU (one per
  /// class of identical GPUs unless `simulate --full`).
  std::vector<program::Rank> ranks;
};

/// The recorded GPUs that `options` selects, in the Program's order; std::invalid_argument
/// naming the recorded ones when a requested GPU was not recorded.
std::vector<std::size_t> selected_ranks(const program::Program& program,
                                        const ChromeTraceOptions& options);

/// Writes the JSON object format ({"traceEvents": [...]}); timestamps in microseconds with
/// picosecond resolution. Zero-duration memory events appear only in the counter track.
/// Flow arrows (Perfetto and chrome://tracing draw them) join each send to its receive, and
/// each collective's first-arriving written member to its last-arriving one (who it waited
/// for), where both ends are written.
void write_chrome_trace(std::ostream& out, const program::Program& program,
                        const sim::SimulationResult& result,
                        const ChromeTraceOptions& options = {});

}  // namespace trainsim::reports
