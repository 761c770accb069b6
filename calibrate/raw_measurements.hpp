#pragma once
// The raw measurement CSV that the microbenchmarks write and `trainsim fit` reads: one row per
// measurement (schema in calibrate/README.md). Parsing only; the fits live in fit_*.hpp.

#include <cstdint>
#include <filesystem>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/dtype.hpp"
#include "models/program.hpp"
#include "units/units.hpp"

namespace trainsim::calibrate {

/// What a row measured.
enum class Benchmark : std::uint8_t {
  gemm,         ///< one cuBLAS GEMM (dtype, m, n, k, batch)
  memcpy,       ///< a device-to-device copy (bytes_moved = read + written)
  elementwise,  ///< an element-wise kernel (bytes_moved = read + written)
  launch,       ///< an empty kernel: the launch overhead alone
  all_reduce,   ///< nccl-tests collectives: bytes = nccl-tests' size
  all_gather,
  reduce_scatter,
  broadcast,
  reduce,
  all_to_all,
  send_recv,               ///< one point-to-point transfer of `bytes` between two GPUs
  gemm_during_collective,  ///< the GEMM of the row while a large collective runs beside it
  /// A fused causal attention call (cuDNN / FlashAttention): m = sequence, k = head dim,
  /// batch = micro batch × query heads, flops = the simulator's causal count
  /// (causal_attention_flops: 2·batch·k·m·(m + 1)); n = m.
  attention,
  attention_backward,  ///< its backward alone (flops 2.5× the forward's)
};

/// Which links a collective crosses: one node's fabric, or the network between nodes.
enum class Tier : std::uint8_t { intra_node, inter_node };

std::string_view to_string(Benchmark b);
/// gemm and gemm_during_collective: the rows with dtype, m, n, k, batch and GEMM FLOPs.
bool is_gemm(Benchmark b);
/// attention and attention_backward.
bool is_attention(Benchmark b);
/// The FLOPs a causal attention row counts (the simulator's convention): the forward's
/// 2·batch·head_dim·s·(s + 1), 2.5× that for the backward.
double attention_row_flops(Benchmark b, std::int64_t seq, std::int64_t head_dim,
                           std::int64_t batch);
std::string_view to_string(Tier t);
/// The simulator's collective for a collective benchmark; nullopt for the others.
std::optional<program::CollectiveKind> collective_kind(Benchmark b);

/// One measurement. Fields a benchmark does not use are zero / empty.
struct RawMeasurement {
  Benchmark benchmark = Benchmark::gemm;
  DType dtype = DType::bf16;
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t batch = 1;
  Bytes bytes;                   ///< collectives: nccl-tests' size (parallelism-reference §0.2)
  std::int64_t group_size = 0;   ///< GPUs in the collective (send_recv: 2)
  Tier tier = Tier::intra_node;  ///< inter_node: the group fills whole nodes in rank order
  std::string algorithm;         ///< e.g. cuBLAS algo id or NCCL ring/tree; recorded, not used
  Time time;                     ///< median over the repetitions
  std::int64_t repetitions = 0;
  Flops flops;            ///< gemm: 2·m·n·k·batch (checked when written)
  Bytes bytes_moved;      ///< memcpy, elementwise: HBM bytes read + written
  bool verified = false;  ///< the result was checked against a reference
  int line = 0;           ///< 1-based line in the file, for messages
};

/// A parsed file: its rows in file order and the `# key: value` lines before the header
/// (the environment record: date, GPU, driver, library versions).
struct RawMeasurements {
  std::filesystem::path file;
  std::map<std::string, std::string> environment;
  std::vector<RawMeasurement> rows;
};

/// The columns, in the order the microbenchmarks write them.
const std::vector<std::string_view>& raw_columns();

/// Parses the CSV text of `file` from `in`. Throws ConfigError naming file, line, column, the
/// value and what is valid for any malformed cell, unknown or missing column, or a row that
/// lacks what its benchmark needs.
RawMeasurements parse_raw_measurements(std::istream& in, const std::filesystem::path& file);

/// Reads and parses a file; a missing file is a ConfigError.
RawMeasurements read_raw_measurements(const std::filesystem::path& file);

}  // namespace trainsim::calibrate
