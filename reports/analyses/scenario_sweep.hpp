#pragma once
// `trainsim sweep`: many scenarios, each with every combination of the values the user varies
// (`--vary parallel.tensor.size=2,4,8`), simulated one by one and listed in one table: the
// iteration time, throughput, MFU and peak memory of each, or why it cannot run. The runs are
// independent: spread over the threads and, under mpirun, the processes of a job.

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "documents/report_table.hpp"
#include "inputs/scenario_override.hpp"
#include "models/process_group.hpp"
#include "sim/progress.hpp"
#include "units/units.hpp"

namespace trainsim::reports {

/// One varied key and its values, in the order given; or keys varied together, each value a
/// tuple with one part per key (to keep a product fixed: tensor × data = GPUs).
struct SweepAxis {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;  ///< one part per key each
};

/// "parallel.tensor.size=2,4,8" as an axis, or "parallel.tensor.size+parallel.data.size=
/// 2+4,4+2" (keys joined by '+', each value's parts likewise); throws std::invalid_argument
/// (naming the text and the form wanted) without '=', with an empty key or value, or a value
/// whose parts do not match the keys.
SweepAxis parse_sweep_axis(const std::string& text);

/// One run of the sweep: a scenario with one value per axis.
struct SweepRun {
  std::filesystem::path scenario_file;
  std::vector<inputs::ScenarioOverride> overrides;  ///< one per key, in axis order
};

/// Every scenario with every combination of the axes' values: scenario-major, the last axis
/// varying fastest.
std::vector<SweepRun> sweep_runs(const std::vector<std::filesystem::path>& scenarios,
                                 const std::vector<SweepAxis>& axes);

/// What one run predicts, or why it has no prediction (the loader's or the executor's reason).
struct SweepResult {
  std::string scenario;  ///< the scenario's name (its file's stem when unnamed)
  std::string error;     ///< empty: the run's figures below are set
  std::int64_t gpus = 0;
  Time iteration;
  double tokens_per_s = 0.0;
  double mfu = 0.0;
  FlopRate hardware_rate_per_gpu;
  Bytes peak;
  Bytes capacity;
  bool fits = false;
};

struct SweepOptions {
  unsigned threads = 0;  ///< runs at once (0: one per core)
  /// The processes that share the runs (an mpirun job); null: this process alone.
  const ProcessGroup* processes = nullptr;
  sim::Progress progress = {};  ///< ("sweep", runs done on this process, its runs)
};

/// Simulates every run (representative ranks). A scenario the loader rejects (with its
/// overrides) or the executor cannot build becomes a result with its error; any other failure
/// (a deadlocked schedule) is thrown.
std::vector<SweepResult> run_sweep(const std::vector<SweepRun>& runs, const SweepOptions& options);

/// One row per run: the scenario, its value of each varied key, then its figures or its error.
documents::ReportTable sweep_table(const std::vector<SweepRun>& runs,
                                   const std::vector<SweepResult>& results);
/// The table with a heading line saying how many runs and how many failed.
std::string sweep_text(const std::vector<SweepRun>& runs, const std::vector<SweepResult>& results);
nlohmann::json sweep_json(const std::vector<SweepRun>& runs,
                          const std::vector<SweepResult>& results);

}  // namespace trainsim::reports
