#pragma once
// Measured whole-run iteration times in vTrain's format (data/vtrain2024/README.md): one
// training configuration per row with its measured iteration time; the scenario each row
// describes; and the rule that holds rows out of a fit. `trainsim fit-runs` fits profiles to
// them, the vtrain2024 reproduction reports the errors on them: both build the same scenarios.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <istream>
#include <vector>

#include "models/scenario.hpp"
#include "units/units.hpp"

namespace trainsim::inputs {

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

/// What the runs are assumed to be where the data do not say (data/vtrain2024/README.md):
/// GPT-2's vocabulary, padded as Megatron pads it.
struct RunAssumptions {
  std::int64_t vocab = 50257;
  std::int64_t vocab_divisor = 128;
};

/// The scenario a row describes: GPT (ffn 4h), bf16 with Adam, 1D tensor parallelism without
/// sequence parallelism, 1F1B, full recomputation, the data-parallel all-reduce not overlapped
/// with the backward pass; named "line-N". The hardware is the caller's.
Scenario measured_run_scenario(const RunMeasurement& run, const RunAssumptions& assumptions = {});

/// Row i (0-based, file order) is held out when floor((i + 1) x fraction) > floor(i x
/// fraction): round(n x fraction) rows, spread evenly over the file (fraction 0.2: rows 4, 9,
/// 14, ..., every 5th).
bool run_held_out(std::size_t index, double fraction);

}  // namespace trainsim::inputs
