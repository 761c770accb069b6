#include "calibrate/gemm_shapes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "models/errors.hpp"

namespace trainsim::calibrate {
namespace {

constexpr std::string_view kHeader = "m,n,k,batch,dtype,transpose_a,transpose_b,count";
constexpr std::array<std::string_view, 8> kColumns{"m",     "n",           "k",           "batch",
                                                   "dtype", "transpose_a", "transpose_b", "count"};

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> cells;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = line.find(',', begin);
    cells.push_back(line.substr(begin, comma - begin));
    if (comma == std::string_view::npos) return cells;
    begin = comma + 1;
  }
}

std::int64_t parse_int(std::string_view text, std::int64_t low, std::int64_t high,
                       const SourceLocation& where, std::string_view column) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || v < low || v > high)
    throw ConfigError(where, fmt::format("{}: expected an integer in [{}, {}], got '{}'", column,
                                         low, high, text));
  return v;
}

}  // namespace

void collect_gemm_shapes(const program::Program& program, std::vector<GemmShape>& shapes) {
  std::map<decltype(GemmShape{}.key()), std::int64_t> counts;
  for (const GemmShape& s : shapes)
    counts[s.key()] += s.count;
  for (const program::RankProgram& rank : program.ranks) {
    for (const program::Op& op : rank.ops) {
      const auto* g = std::get_if<program::Gemm>(&op.payload);
      if (g == nullptr) continue;
      const GemmShape s{g->m, g->n, g->k, g->batch, g->dtype, g->transpose_a, g->transpose_b, 0};
      ++counts[s.key()];
    }
  }
  shapes.clear();
  for (const auto& [key, count] : counts) {
    const auto& [m, n, k, batch, dtype, ta, tb] = key;
    shapes.push_back({m, n, k, batch, dtype, ta, tb, count});
  }
  // Grouped by dtype first: the benchmark sets up one dtype's operands at a time.
  std::stable_sort(shapes.begin(), shapes.end(), [](const GemmShape& a, const GemmShape& b) {
    return std::tuple(a.dtype, a.m, a.n, a.k, a.batch, a.transpose_a, a.transpose_b) <
           std::tuple(b.dtype, b.m, b.n, b.k, b.batch, b.transpose_a, b.transpose_b);
  });
}

void write_gemm_shapes(std::ostream& out, std::span<const GemmShape> shapes) {
  out << kHeader << '\n';
  for (const GemmShape& s : shapes) {
    out << fmt::format("{},{},{},{},{},{},{},{}\n", s.m, s.n, s.k, s.batch, to_string(s.dtype),
                       s.transpose_a ? 1 : 0, s.transpose_b ? 1 : 0, s.count);
  }
}

std::vector<GemmShape> parse_gemm_shapes(std::istream& in, const std::filesystem::path& file) {
  std::vector<GemmShape> shapes;
  std::string line;
  int number = 0;
  bool header_seen = false;
  constexpr std::int64_t kMaxDim = std::numeric_limits<program::Gemm::Dim>::max();
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line.front() == '#') continue;
    if (!header_seen) {
      if (line != kHeader)
        throw ConfigError({file, number, 1},
                          fmt::format("header: expected '{}', got '{}'", kHeader, line));
      header_seen = true;
      continue;
    }
    const std::vector<std::string_view> cells = split(line);
    if (cells.size() != kColumns.size())
      throw ConfigError({file, number, 1}, fmt::format("expected {} cells ({}), got {}",
                                                       kColumns.size(), kHeader, cells.size()));
    auto at = [&](std::size_t i) { return SourceLocation{file, number, static_cast<int>(i + 1)}; };
    GemmShape s;
    s.m = parse_int(cells[0], 1, kMaxDim, at(0), kColumns[0]);
    s.n = parse_int(cells[1], 1, kMaxDim, at(1), kColumns[1]);
    s.k = parse_int(cells[2], 1, kMaxDim, at(2), kColumns[2]);
    s.batch = parse_int(cells[3], 1, kMaxDim, at(3), kColumns[3]);
    const std::optional<DType> dtype = dtype_from_string(cells[4]);
    if (!dtype)
      throw ConfigError(at(4), fmt::format("dtype: expected one of fp64, fp32, tf32, bf16, fp16, "
                                           "got '{}'",
                                           cells[4]));
    s.dtype = *dtype;
    s.transpose_a = parse_int(cells[5], 0, 1, at(5), kColumns[5]) == 1;
    s.transpose_b = parse_int(cells[6], 0, 1, at(6), kColumns[6]) == 1;
    s.count = parse_int(cells[7], 0, std::numeric_limits<std::int64_t>::max(), at(7), kColumns[7]);
    shapes.push_back(s);
  }
  if (!header_seen)
    throw ConfigError({file, 0, 0}, fmt::format("no header: expected '{}'", kHeader));
  return shapes;
}

std::vector<GemmShape> read_gemm_shapes(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw ConfigError({file, 0, 0}, "cannot open the GEMM shapes file");
  return parse_gemm_shapes(in, file);
}

}  // namespace trainsim::calibrate
