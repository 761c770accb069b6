#pragma once
// MEASURED.json, the file `trainsim exec --backend cuda --time --json` writes and
// `trainsim validate-run` reads: the MeasuredRun with times in seconds, ops in issue order
// (`ops`: name, class, layer, micro_batch, phase, stream, time_s), per-layer sums (`layers`,
// written for convenience, not read back), `skipped_collectives`, `iteration_s` and the run's
// scenario, hardware profile, rank, device, warmup and repetitions.

#include <filesystem>
#include <string>
#include <string_view>

#include "models/measured_run.hpp"

namespace trainsim::reports {

/// Deterministic JSON text (keys in a fixed order, two-space indent).
std::string measured_run_to_json(const MeasuredRun& run);

/// Parses MEASURED.json text; a missing or mistyped field, an unknown op class, stream or
/// phase, or a negative time throws ConfigError naming `source`, the field and what is valid.
MeasuredRun measured_run_from_json(std::string_view text, const std::filesystem::path& source);

/// Reads and parses a file (ConfigError when it cannot be read).
MeasuredRun load_measured_run(const std::filesystem::path& file);

}  // namespace trainsim::reports
