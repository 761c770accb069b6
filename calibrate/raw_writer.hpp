#pragma once
// Writes the raw measurement CSV (calibrate/README.md) that parse_raw_measurements reads back:
// the environment as `# key: value` lines, the header in raw_columns() order, one row per
// measurement, cells a benchmark does not use left empty. Plain C++, so the format is tested
// without a GPU; the microbenchmark driver (trainsim-calibrate) writes through it.

#include <map>
#include <ostream>
#include <span>
#include <string>

#include "calibrate/raw_measurements.hpp"

namespace trainsim::calibrate {

/// The CSV text of `rows` under `environment` (keys and values must not contain newlines;
/// keys no ':'). Throws std::invalid_argument naming the key otherwise.
void write_raw_measurements(std::ostream& out,
                            const std::map<std::string, std::string>& environment,
                            std::span<const RawMeasurement> rows);

}  // namespace trainsim::calibrate
