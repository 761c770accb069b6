#pragma once
// The GEMM shapes the shipped scenarios run: the unique (m, n, k, batch, dtype, transposes)
// of the Gemm ops in recorded Programs, as a small CSV that `trainsim gemm-shapes` writes and
// the GEMM microbenchmark reads (`trainsim-calibrate --shapes FILE`), so the calibration
// measures exactly the shapes the replay will time.
//
//   m,n,k,batch,dtype,transpose_a,transpose_b,count
//   2048,12288,4096,1,bf16,0,1,96
//
// `count` is how many ops of the Programs had the shape (informational).

#include <cstdint>
#include <filesystem>
#include <istream>
#include <ostream>
#include <span>
#include <tuple>
#include <vector>

#include "models/dtype.hpp"
#include "models/program.hpp"

namespace trainsim::calibrate {

struct GemmShape {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t batch = 1;
  DType dtype = DType::bf16;
  bool transpose_a = false;
  bool transpose_b = false;
  std::int64_t count = 0;  ///< ops with this shape (informational)

  auto key() const { return std::tuple(m, n, k, batch, dtype, transpose_a, transpose_b); }
};

/// Adds the Gemm ops of every recorded rank of `program` to `shapes` (merging equal shapes,
/// counts summed); the result is sorted by (dtype, m, n, k, batch, transposes).
void collect_gemm_shapes(const program::Program& program, std::vector<GemmShape>& shapes);

void write_gemm_shapes(std::ostream& out, std::span<const GemmShape> shapes);

/// Parses the CSV of `file` from `in`. Throws ConfigError naming file, line, column, the value
/// and what is valid for a malformed cell or a header other than the one written above.
std::vector<GemmShape> parse_gemm_shapes(std::istream& in, const std::filesystem::path& file);
/// Reads and parses a file; a missing file is a ConfigError.
std::vector<GemmShape> read_gemm_shapes(const std::filesystem::path& file);

}  // namespace trainsim::calibrate
