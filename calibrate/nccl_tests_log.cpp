#include "calibrate/nccl_tests_log.hpp"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/errors.hpp"
#include "sim/collective_model.hpp"

namespace trainsim::calibrate {

namespace {

constexpr std::int64_t kMaxBytes = std::int64_t{1} << 50;  // 1 PiB, as the raw CSV
constexpr std::int64_t kMaxRanks = std::int64_t{1} << 20;
constexpr double kMaxTimeUs = 86400e6;  // one day

struct Program {
  std::string_view name;
  Benchmark benchmark;
};
// all_reduce before reduce: "all_reduce_perf" contains "reduce_perf".
constexpr std::array kPrograms{
    Program{"all_reduce_perf", Benchmark::all_reduce},
    Program{"all_gather_perf", Benchmark::all_gather},
    Program{"reduce_scatter_perf", Benchmark::reduce_scatter},
    Program{"alltoall_perf", Benchmark::all_to_all},
    Program{"sendrecv_perf", Benchmark::send_recv},
    Program{"broadcast_perf", Benchmark::broadcast},
    Program{"reduce_perf", Benchmark::reduce},
};

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

struct Token {
  std::string_view text;
  int column = 0;  // 1-based
};

std::vector<Token> tokens(std::string_view line) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
      ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
      ++i;
    if (i > start) out.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
  }
  return out;
}

std::optional<Benchmark> program_benchmark(std::string_view text) {
  for (const Program& p : kPrograms) {
    if (text.find(p.name) != std::string_view::npos) return p.benchmark;
  }
  return std::nullopt;
}

// nccl-tests' bus factor (doc/PERFORMANCE.md), the simulator's: busbw = algbw × factor.
double bus_factor(Benchmark b, std::int64_t n) {
  const std::optional<program::CollectiveKind> kind = collective_kind(b);
  return sim::bus_factor(kind.value_or(program::CollectiveKind::sendrecv), n);
}

class LogParser {
 public:
  explicit LogParser(const std::filesystem::path& file) : file_(file) {}

  RawMeasurements parse(std::istream& in) {
    std::string text;
    while (std::getline(in, text)) {
      ++line_;
      const std::string_view trimmed = trim(text);
      if (trimmed.empty()) continue;
      // Columns are 1-based positions in the line: where the text handed on starts.
      if (trimmed.front() == '#') {
        const std::string_view body = trim(trimmed.substr(1));
        comment(body, static_cast<int>(body.data() - text.data()) + 1);
      } else {
        data_row(trimmed, static_cast<int>(trimmed.data() - text.data()) + 1);
      }
    }
    return finish();
  }

 private:
  [[noreturn]] void fail(int column, const std::string& what) const {
    throw ConfigError({file_, line_, column}, what);
  }

  void comment(std::string_view body, int column) {
    const std::vector<Token> t = tokens(body);
    if (t.empty()) return;
    if (t[0].text == "nccl-tests" && t.size() >= 3 && t[1].text == "version") {
      environment_["nccl-tests"] = std::string(t[2].text);
      for (const Token& token : t) {
        if (token.text.substr(0, 13) == "nccl-library=")
          environment_["nccl"] = std::string(token.text.substr(13));
      }
    } else if (body.substr(0, 25) == "Collective test starting:") {
      program_ = std::string(trim(body.substr(25)));
    } else if (t[0].text == "nThread") {
      for (std::size_t i = 1; i + 1 < t.size(); ++i) {
        if (t[i].text == "iters:" && t[i - 1].text != "warmup" && t[i - 1].text != "agg") {
          iterations_ = integer(t[i + 1], column, "iters", 1, 1'000'000'000);
        }
      }
    } else if (t[0].text == "Rank" && t.size() >= 4) {
      device_line(body, t, column);
    } else if (t[0].text == "size" && t.size() >= 2 && t[1].text == "count") {
      header(t, column);
    }
  }

  // "Rank  0 Group  0 Pid 1234 on host device 0 [0000:18:00] NVIDIA H100 80GB HBM3" (and the
  // older "Rank 0 Pid 1234 on host device 0 [0x18] Tesla V100"): its host and GPU name.
  void device_line(std::string_view body, const std::vector<Token>& t, int column) {
    std::optional<std::string> host;
    for (std::size_t i = 0; i + 1 < t.size(); ++i) {
      if (t[i].text == "on") host = std::string(t[i + 1].text);
    }
    if (!host)
      fail(column, "a device line ('Rank N ... on HOST device D [...] GPU') without its host");
    if (++ranks_ > kMaxRanks) fail(column, fmt::format("more than {} device lines", kMaxRanks));
    hosts_.insert(*host);
    ranks_per_host_[*host]++;
    if (const auto bracket = body.find(']'); bracket != std::string_view::npos && gpu_.empty())
      gpu_ = std::string(trim(body.substr(bracket + 1)));
  }

  // "size count type redop root time algbw busbw #wrong time ..." (≤ 2022: no redop/root for
  // some tests, `error` for `#wrong`): where the out-of-place time is.
  void header(const std::vector<Token>& t, int column) {
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t[i].text == "time" || t[i].text == "cputime") {
        time_index_ = i;
        cputime_ = t[i].text == "cputime";
        if (i + 3 >= t.size() || t[i + 1].text != "algbw" || t[i + 2].text != "busbw")
          fail(column + t[i].column - 1, "expected 'time algbw busbw #wrong' in the column header");
        return;
      }
    }
    fail(column, "a column header without a 'time' column");
  }

  std::int64_t integer(const Token& t, int base_column, std::string_view field, std::int64_t lo,
                       std::int64_t hi) const {
    const std::string s(t.text);
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (end != s.c_str() + s.size() || errno == ERANGE || v < lo || v > hi) {
      fail(base_column + t.column - 1,
           fmt::format("{}: expected an integer in [{}, {}], got '{}'", field, lo, hi, s));
    }
    return v;
  }

  double number(const Token& t, int base_column, std::string_view field) const {
    const std::string s(t.text);
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(v) || v < 0.0)
      fail(base_column + t.column - 1,
           fmt::format("{}: expected a finite number >= 0, got '{}'", field, s));
    return v;
  }

  void data_row(std::string_view row, int base_column) {
    if (!time_index_) {
      fail(base_column,
           "a data row before the column header ('#  size  count  type ... time "
           "algbw busbw #wrong'): not nccl-tests output?");
    }
    const std::vector<Token> t = tokens(row);
    const std::size_t p = *time_index_;
    if (t.size() < p + 4) {
      fail(base_column, fmt::format("a data row of {} fields: the column header needs at "
                                    "least {} (size ... time algbw busbw #wrong)",
                                    t.size(), p + 4));
    }
    Row r;
    r.line = line_;
    r.column = base_column;
    r.bytes = integer(t[0], base_column, "size", 0, kMaxBytes);
    r.type = std::string(t[2].text);
    r.time_us = number(t[p], base_column, "time (us)");
    r.algbw = number(t[p + 1], base_column, "algbw (GB/s)");
    r.busbw = number(t[p + 2], base_column, "busbw (GB/s)");
    const Token& wrong = t[p + 3];
    r.checked = wrong.text != "N/A";
    r.wrong = r.checked ? integer(wrong, base_column, "#wrong", 0, kMaxBytes) : 0;
    if (r.time_us > kMaxTimeUs)
      fail(base_column + t[p].column - 1, fmt::format("time (us): {} is over a day", t[p].text));
    rows_.push_back(std::move(r));
  }

  RawMeasurements finish() {
    if (rows_.empty()) {
      throw ConfigError({file_},
                        "no data rows: not nccl-tests output (expected '#  size  count "
                        "type ... time algbw busbw #wrong' and rows below it)");
    }
    const std::optional<Benchmark> benchmark = program_.empty()
                                                   ? program_benchmark(file_.filename().string())
                                                   : program_benchmark(program_);
    if (!benchmark) {
      throw ConfigError(
          {file_},
          fmt::format("which collective? {}: keep the '# Collective test starting: X' line "
                      "or name the file after its program (all_reduce_perf, "
                      "all_gather_perf, reduce_scatter_perf, alltoall_perf, "
                      "sendrecv_perf, broadcast_perf, reduce_perf)",
                      program_.empty() ? "no program line, and the file name names none"
                                       : "'" + program_ + "' is none of them"));
    }
    if (ranks_ < 2) {
      throw ConfigError({file_}, fmt::format("{} device line(s) ('#  Rank N ... on HOST device D'):"
                                             " a collective needs at least 2 ranks",
                                             ranks_));
    }
    RawMeasurements out;
    out.file = file_;
    out.environment = environment_;
    out.environment["source"] = "nccl-tests log " + file_.filename().string();
    out.environment["ranks"] = std::to_string(ranks_);
    out.environment["hosts"] = std::to_string(hosts_.size());
    if (!gpu_.empty()) out.environment["gpu"] = gpu_;
    std::string per_host;
    for (const auto& [host, n] : ranks_per_host_)
      per_host += fmt::format("{}{} on {}", per_host.empty() ? "" : ", ", n, host);
    out.environment["ranks per host"] = per_host;
    const Tier tier = hosts_.size() > 1 ? Tier::inter_node : Tier::intra_node;
    const double factor = bus_factor(*benchmark, ranks_);
    for (const Row& r : rows_) {
      if (r.bytes == 0) continue;  // nccl-tests' zero-byte rows time nothing
      if (r.time_us <= 0.0) {
        throw ConfigError({file_, r.line, r.column},
                          "time (us): 0 for a non-empty buffer: expected a positive time");
      }
      // busbw = algbw × the bus factor of the group: a mismatch means the device lines are not
      // the group that ran (a log cut short, or several runs pasted together).
      if (r.algbw >= 1.0 && std::abs(r.busbw / r.algbw - factor) > 0.03 * factor + 0.01) {
        throw ConfigError({file_, r.line, r.column},
                          fmt::format("busbw / algbw = {:.3f}, but {} over the {} ranks of the "
                                      "device lines has bus factor {:.3f}",
                                      r.busbw / r.algbw, to_string(*benchmark), ranks_, factor));
      }
      RawMeasurement m;
      m.benchmark = *benchmark;
      m.bytes = Bytes::of(r.bytes);
      m.group_size = *benchmark == Benchmark::send_recv ? 2 : ranks_;
      m.tier = tier;
      m.time = Time::from_us(r.time_us);
      m.repetitions = iterations_;
      m.verified = r.wrong == 0;
      m.algorithm =
          fmt::format("nccl-tests {}{}; {}; algbw {} busbw {} GB/s{}{}",
                      environment_.count("nccl-tests") ? environment_.at("nccl-tests")
                                                       : "(version not printed)",
                      cputime_ ? " cputime" : "", r.type, r.algbw, r.busbw,
                      r.checked ? "" : "; unchecked (-c 0)",
                      *benchmark == Benchmark::send_recv && ranks_ > 2
                          ? fmt::format("; a ring of {} ranks, each sending to the next", ranks_)
                          : "");
      m.line = r.line;
      out.rows.push_back(std::move(m));
    }
    if (out.rows.empty()) throw ConfigError({file_}, "only zero-byte rows: nothing was timed");
    return out;
  }

  struct Row {
    int line = 0;
    int column = 0;
    std::int64_t bytes = 0;
    std::string type;
    double time_us = 0.0;
    double algbw = 0.0;
    double busbw = 0.0;
    bool checked = true;
    std::int64_t wrong = 0;
  };

  const std::filesystem::path& file_;
  int line_ = 0;
  std::map<std::string, std::string> environment_;
  std::string program_;
  std::string gpu_;
  std::int64_t iterations_ = 1;
  std::int64_t ranks_ = 0;
  std::set<std::string> hosts_;
  std::map<std::string, std::int64_t> ranks_per_host_;
  std::optional<std::size_t> time_index_;
  bool cputime_ = false;
  std::vector<Row> rows_;
};

}  // namespace

RawMeasurements parse_nccl_tests_log(std::istream& in, const std::filesystem::path& file) {
  return LogParser(file).parse(in);
}

RawMeasurements read_nccl_tests_log(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw ConfigError({file}, "cannot open the nccl-tests log for reading");
  return parse_nccl_tests_log(in, file);
}

}  // namespace trainsim::calibrate
