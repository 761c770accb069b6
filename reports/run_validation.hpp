#pragma once
// `trainsim validate-run MEASURED.json SCENARIO`: the simulator's prediction for the rank a
// GPU run timed, against what it measured, per op class, per op name, per layer and per
// iteration, with the signed error (predicted − measured) / measured.
//
// What is compared: the GEMMs and kernels of the rank's Program, each predicted as the cost
// model times it on an otherwise idle GPU (sim::compute_time), which is what a single GPU
// running the rank's ops with its collectives skipped does. The iteration row sums them (one
// compute stream, nothing to wait for) against the measured iteration. The full simulated
// iteration (with communication) is shown for reference only.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/measured_run.hpp"
#include "models/program.hpp"
#include "sim/hardware_profile.hpp"
#include "units/units.hpp"

namespace trainsim::reports {

struct ValidationRow {
  std::string key;
  double predicted_s = 0.0;
  double measured_s = 0.0;
  std::int64_t predicted_ops = 0;
  std::int64_t measured_ops = 0;
  /// (predicted − measured) / measured; nullopt when nothing was measured.
  std::optional<double> signed_error() const;
};

struct RunValidation {
  std::string scenario;
  std::string hardware;
  std::string device;
  std::int64_t rank = 0;
  std::vector<ValidationRow> by_class;  ///< gemm, kernel
  std::vector<ValidationRow> by_name;   ///< op names in the Program's first-issue order
  std::vector<ValidationRow> by_layer;  ///< "layer N" in order, then "outside layers"
  ValidationRow iteration;              ///< compute ops in sequence vs the measured iteration
  double simulated_iteration_s = 0.0;   ///< the full replay, with communication
  std::vector<SkippedCollective> skipped;
};

/// Compares `measured` with rank `measured.rank` of `program` on `hardware`. Throws
/// std::invalid_argument when the Program did not record that rank.
RunValidation validate_run(const MeasuredRun& measured, const program::Program& program,
                           const hw::HardwareProfile& hardware, Time simulated_iteration);

/// The tables, one line per row: predicted, measured (ms), signed error (%).
std::string format_run_validation(const RunValidation& v);

}  // namespace trainsim::reports
