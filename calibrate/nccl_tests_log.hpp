#pragma once
// nccl-tests' text output (all_reduce_perf, all_gather_perf, reduce_scatter_perf, broadcast_perf,
// reduce_perf, alltoall_perf, sendrecv_perf; ecosystem-formats.md §4) as raw measurement rows
// for `trainsim fit --nccl-tests LOG...`: one row per data line, its out-of-place time, the
// group size from the device lines, the tier from their host names. Parsed by the format's
// grammar, old (≤ 2022: no redop/root, `error` column) and new (version, starting lines, `-I`
// and `-S` columns), not by fixed columns.

#include <filesystem>
#include <istream>
#include <string_view>

#include "calibrate/raw_measurements.hpp"

namespace trainsim::calibrate {

/// Parses one nccl-tests run. The collective comes from the `# Collective test starting: X`
/// line, else from the file name (`all_reduce_perf*`, ...). Each data row becomes a
/// RawMeasurement: nccl-tests' size as `bytes`, out-of-place time, `verified` from `#wrong`
/// (`N/A`, validation off: unchecked, kept as verified; nonzero: not verified), repetitions from
/// the `iters:` field; busbw / algbw is checked against the bus factor of the group the device
/// lines give. Environment: nccl-tests and NCCL versions, GPU, ranks, hosts. Throws ConfigError
/// naming file:line:column, the field, the value and what is valid.
RawMeasurements parse_nccl_tests_log(std::istream& in, const std::filesystem::path& file);

/// Reads and parses a file (ConfigError when it cannot be read).
RawMeasurements read_nccl_tests_log(const std::filesystem::path& file);

}  // namespace trainsim::calibrate
