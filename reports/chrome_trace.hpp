#pragma once
// Chrome/Perfetto trace of a replay (chrome://tracing, ui.perfetto.dev): one process per
// GPU, one thread per stream, one complete event per op, and a memory counter track.

#include <ostream>

#include "models/program.hpp"
#include "sim/simulation_result.hpp"

namespace trainsim::reports {

/// Writes the JSON object format ({"traceEvents": [...]}); timestamps in microseconds with
/// picosecond resolution. Zero-duration memory events appear only in the counter track.
void write_chrome_trace(std::ostream& out, const program::Program& program,
                        const sim::SimulationResult& result);

}  // namespace trainsim::reports
