#include "calibrate/raw_measurements.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <span>

#include "models/errors.hpp"

namespace trainsim::calibrate {
namespace {

constexpr double kMaxBenchmarkSeconds = 86'400.0;
// Bounds that keep every product the fits form (m·n·k·batch FLOPs, bytes over a group) far
// from overflow: no benchmark comes near them.
constexpr std::int64_t kMaxDimension =
    std::numeric_limits<program::Gemm::Dim>::max();        // m, n, k, batch: a Gemm's
constexpr std::int64_t kMaxBytes = std::int64_t{1} << 50;  // 1 PiB
constexpr std::int64_t kMaxGroup = std::int64_t{1} << 20;  // GPUs in a collective
constexpr std::int64_t kMaxRepetitions = std::int64_t{1} << 40;
// Attention rows: bounds under which 2·batch·k·m·(m + 1) stays far inside a double's range
// and every real call (sequences to 16M tokens, heads of 1024 dimensions) fits.
constexpr std::int64_t kMaxAttentionSequence = std::int64_t{1} << 24;
constexpr std::int64_t kMaxHeadDim = 1024;
constexpr std::int64_t kMaxAttentionBatch = std::int64_t{1} << 24;

constexpr std::array<std::string_view, 14> kBenchmarkNames{
    "gemm",           "memcpy",
    "elementwise",    "launch",
    "all_reduce",     "all_gather",
    "reduce_scatter", "broadcast",
    "reduce",         "all_to_all",
    "send_recv",      "gemm_during_collective",
    "attention",      "attention_backward"};
constexpr std::array<std::string_view, 2> kTierNames{"intra_node", "inter_node"};

std::string join_names(std::span<const std::string_view> names) {
  std::string out;
  for (const std::string_view n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

/// One cell with its position, for messages.
struct Cell {
  std::string_view text;
  std::string_view column;
  SourceLocation where;

  [[noreturn]] void fail(std::string_view expected) const {
    throw ConfigError(where, fmt::format("{}: expected {}, got '{}'", column, expected, text));
  }
  bool empty() const { return text.empty(); }

  std::int64_t as_int(std::int64_t low, std::int64_t high) const {
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || v < low || v > high) {
      fail(fmt::format("an integer in {}..{}", low, high));
    }
    return v;
  }
  double as_positive_double(double high = std::numeric_limits<double>::max()) const {
    double v = 0.0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(v) || v <= 0.0 ||
        v > high) {
      fail(high < std::numeric_limits<double>::max()
               ? fmt::format("a positive number up to {}", high)
               : std::string("a positive number"));
    }
    return v;
  }
  template <std::size_t N>
  std::size_t as_choice(const std::array<std::string_view, N>& names) const {
    const auto it = std::find(names.begin(), names.end(), text);
    if (it == names.end()) fail(fmt::format("one of {}", join_names(names)));
    return static_cast<std::size_t>(it - names.begin());
  }
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

/// Splits on commas (no quoting: no field of the schema contains one), with the 1-based
/// column where each cell starts.
std::vector<std::pair<std::string_view, int>> split(std::string_view line) {
  std::vector<std::pair<std::string_view, int>> cells;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
    cells.emplace_back(trim(line.substr(start, end - start)), static_cast<int>(start) + 1);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return cells;
}

RawMeasurement parse_row(const std::map<std::string_view, Cell>& cells, int line) {
  RawMeasurement r;
  r.line = line;
  const Cell& benchmark = cells.at("benchmark");
  r.benchmark = static_cast<Benchmark>(benchmark.as_choice(kBenchmarkNames));
  const std::string_view name = to_string(r.benchmark);
  auto required = [&](std::string_view column) -> const Cell& {
    const Cell& c = cells.at(column);
    if (c.empty()) c.fail(fmt::format("a value (benchmark {} needs {})", name, column));
    return c;
  };
  // A benchmark's time beyond a day is a unit error; beyond ~9·10^6 s, not a Time at all.
  r.time = Time::from_seconds(required("time_s").as_positive_double(kMaxBenchmarkSeconds));
  r.repetitions = required("repetitions").as_int(1, kMaxRepetitions);
  const Cell& verified = required("verified");
  if (verified.text != "yes" && verified.text != "no") verified.fail("yes or no");
  r.verified = verified.text == "yes";
  r.algorithm = std::string(cells.at("algorithm").text);

  if (is_attention(r.benchmark)) {
    const Cell& dtype = required("dtype");
    const auto d = dtype_from_string(dtype.text);
    if (!d || (*d != DType::bf16 && *d != DType::fp16)) dtype.fail("bf16 or fp16");
    r.dtype = *d;
    r.m = required("m").as_int(1, kMaxAttentionSequence);
    r.k = required("k").as_int(1, kMaxHeadDim);
    r.n = r.m;
    if (const Cell& n = cells.at("n"); !n.empty() && n.as_int(1, kMaxDimension) != r.m)
      n.fail(fmt::format("empty or m ({}): attention is square", r.m));
    r.batch = required("batch").as_int(1, kMaxAttentionBatch);
    const double flops = attention_row_flops(r.benchmark, r.m, r.k, r.batch);
    r.flops = Flops::of(flops);
    if (const Cell& f = cells.at("flops"); !f.empty()) {
      if (std::abs(f.as_positive_double() - flops) > 1e-6 * flops) {
        f.fail(fmt::format("the causal count {:.17g} ({}2·batch·k·m·(m + 1))", flops,
                           r.benchmark == Benchmark::attention ? "" : "2.5 × "));
      }
    }
  } else if (is_gemm(r.benchmark)) {
    const Cell& dtype = required("dtype");
    const auto d = dtype_from_string(dtype.text);
    if (!d) dtype.fail("one of fp64, fp32, tf32, bf16, fp16, fp8");
    r.dtype = *d;
    r.m = required("m").as_int(1, kMaxDimension);
    r.n = required("n").as_int(1, kMaxDimension);
    r.k = required("k").as_int(1, kMaxDimension);
    if (!cells.at("batch").empty()) r.batch = cells.at("batch").as_int(1, kMaxDimension);
    const double flops = 2.0 * static_cast<double>(r.m) * static_cast<double>(r.n) *
                         static_cast<double>(r.k) * static_cast<double>(r.batch);
    r.flops = Flops::of(flops);
    if (const Cell& f = cells.at("flops"); !f.empty()) {
      if (std::abs(f.as_positive_double() - flops) > 1e-6 * flops) {
        f.fail(fmt::format("2·m·n·k·batch = {:.17g}", flops));
      }
    }
  } else if (r.benchmark == Benchmark::memcpy || r.benchmark == Benchmark::elementwise) {
    r.bytes_moved = Bytes::of(required("bytes_moved").as_int(1, kMaxBytes));
    if (!cells.at("bytes").empty()) r.bytes = Bytes::of(cells.at("bytes").as_int(0, kMaxBytes));
  } else if (r.benchmark != Benchmark::launch) {
    r.bytes = Bytes::of(required("bytes").as_int(1, kMaxBytes));
    r.tier = static_cast<Tier>(required("tier").as_choice(kTierNames));
    if (r.benchmark == Benchmark::send_recv) {
      r.group_size =
          cells.at("group_size").empty() ? 2 : cells.at("group_size").as_int(2, kMaxGroup);
      if (r.group_size != 2) cells.at("group_size").fail("2 (or empty) for send_recv");
    } else {
      r.group_size = required("group_size").as_int(2, kMaxGroup);
    }
  }
  return r;
}

}  // namespace

bool is_gemm(Benchmark b) {
  return b == Benchmark::gemm || b == Benchmark::gemm_during_collective;
}

bool is_attention(Benchmark b) {
  return b == Benchmark::attention || b == Benchmark::attention_backward;
}

double attention_row_flops(Benchmark b, std::int64_t seq, std::int64_t head_dim,
                           std::int64_t batch) {
  const double s = static_cast<double>(seq);
  const double forward =
      2.0 * static_cast<double>(batch) * static_cast<double>(head_dim) * s * (s + 1.0);
  return b == Benchmark::attention_backward ? 2.5 * forward : forward;
}

std::string_view to_string(Benchmark b) {
  return kBenchmarkNames[static_cast<std::size_t>(b)];
}

std::string_view to_string(Tier t) {
  return kTierNames[static_cast<std::size_t>(t)];
}

std::optional<program::CollectiveKind> collective_kind(Benchmark b) {
  using program::CollectiveKind;
  switch (b) {
    case Benchmark::all_reduce:
      return CollectiveKind::all_reduce;
    case Benchmark::all_gather:
      return CollectiveKind::all_gather;
    case Benchmark::reduce_scatter:
      return CollectiveKind::reduce_scatter;
    case Benchmark::broadcast:
      return CollectiveKind::broadcast;
    case Benchmark::reduce:
      return CollectiveKind::reduce;
    case Benchmark::all_to_all:
      return CollectiveKind::all_to_all;
    default:
      return std::nullopt;
  }
}

const std::vector<std::string_view>& raw_columns() {
  static const std::vector<std::string_view> columns{
      "benchmark", "dtype",       "m",          "n",           "k",
      "batch",     "bytes",       "group_size", "tier",        "algorithm",
      "time_s",    "repetitions", "flops",      "bytes_moved", "verified"};
  return columns;
}

RawMeasurements parse_raw_measurements(std::istream& in, const std::filesystem::path& file) {
  RawMeasurements out;
  out.file = file;
  std::vector<std::string_view> header;  // column name per position
  std::string header_text;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    const std::string_view trimmed = trim(text);
    if (trimmed.empty()) continue;
    if (trimmed.front() == '#') {
      // "# key: value" before the header is the environment record; other comments are skipped.
      const std::string_view body = trim(trimmed.substr(1));
      const std::size_t colon = body.find(':');
      if (header.empty() && colon != std::string_view::npos) {
        out.environment[std::string(trim(body.substr(0, colon)))] =
            std::string(trim(body.substr(colon + 1)));
      }
      continue;
    }
    const auto cells = split(trimmed);
    if (header.empty()) {
      header_text = std::string(trimmed);
      for (const auto& [name, column] : split(header_text)) {
        const auto& known = raw_columns();
        if (std::find(known.begin(), known.end(), name) == known.end()) {
          throw ConfigError(
              {file, line, column},
              fmt::format("unknown column '{}'; the columns are {}", name, join_names(known)));
        }
        if (std::find(header.begin(), header.end(), name) != header.end()) {
          throw ConfigError({file, line, column}, fmt::format("column '{}' twice", name));
        }
        header.push_back(name);
      }
      for (const std::string_view name : raw_columns()) {
        if (std::find(header.begin(), header.end(), name) == header.end()) {
          throw ConfigError({file, line, 1}, fmt::format("missing column '{}'; the columns are {}",
                                                         name, join_names(raw_columns())));
        }
      }
      continue;
    }
    if (cells.size() != header.size()) {
      throw ConfigError({file, line, 1}, fmt::format("expected {} cells as in the header, got {}",
                                                     header.size(), cells.size()));
    }
    std::map<std::string_view, Cell> by_name;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      by_name.emplace(header[i], Cell{cells[i].first, header[i], {file, line, cells[i].second}});
    }
    out.rows.push_back(parse_row(by_name, line));
  }
  if (header.empty()) {
    throw ConfigError({file, line, 0}, fmt::format("no header line; expected the columns {}",
                                                   join_names(raw_columns())));
  }
  return out;
}

RawMeasurements read_raw_measurements(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw ConfigError({file, 0, 0}, "cannot open the measurement file");
  return parse_raw_measurements(in, file);
}

}  // namespace trainsim::calibrate
