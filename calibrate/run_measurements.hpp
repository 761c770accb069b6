#pragma once
// Measured whole-run iteration times in vTrain's format (../shared/data/README.md): one
// training configuration per row with its measured iteration time, for `trainsim fit-runs`.

#include <cstdint>
#include <filesystem>
#include <istream>
#include <vector>

#include "units/units.hpp"

namespace trainsim::calibrate {

/// One measured configuration: a GPT trained with 1D tensor, data and pipeline parallelism.
struct RunMeasurement {
  std::int64_t gpus = 0;
  std::int64_t global_batch = 0;
  std::int64_t micro_batch = 0;
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t layers = 0;
  std::int64_t seq_len = 0;
  std::int64_t tensor = 1;
  std::int64_t data = 1;
  std::int64_t pipeline = 1;
  Time time;     ///< measured iteration time
  int line = 0;  ///< 1-based line in the file
};

struct RunMeasurements {
  std::filesystem::path file;
  std::vector<RunMeasurement> rows;
};

/// Parses vTrain's CSV: an optional header line starting with '#', then 11 columns per row
/// (GPUs, global batch, micro batch, hidden, heads, layers, sequence length, tensor, data and
/// pipeline parallel sizes, iteration time in ms). Throws ConfigError naming file, line,
/// column and value for a malformed cell or a row whose GPUs are not tensor x data x pipeline.
RunMeasurements parse_run_measurements(std::istream& in, const std::filesystem::path& file);

/// Reads and parses a file; a missing file is a ConfigError.
RunMeasurements read_run_measurements(const std::filesystem::path& file);

}  // namespace trainsim::calibrate
