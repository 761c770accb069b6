#include "calibrate/raw_writer.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string_view>

namespace trainsim::calibrate {
namespace {

bool is_memory(Benchmark b) {
  return b == Benchmark::memcpy || b == Benchmark::elementwise;
}
bool is_transfer(Benchmark b) {
  return collective_kind(b).has_value() || b == Benchmark::send_recv;
}

void check_environment(const std::string& key, const std::string& value) {
  if (key.empty() || key.find_first_of(":\n\r") != std::string::npos)
    throw std::invalid_argument(
        fmt::format("environment key '{}': must be non-empty, without ':' or newlines", key));
  if (value.find_first_of("\n\r") != std::string::npos)
    throw std::invalid_argument(
        fmt::format("environment value of '{}': must not contain newlines", key));
}

// Commas would split a cell: the algorithm name is the only free text of a row.
std::string cell_text(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c == ',' || c == '\n' || c == '\r') c = ';';
  return out;
}

}  // namespace

void write_raw_measurements(std::ostream& out,
                            const std::map<std::string, std::string>& environment,
                            std::span<const RawMeasurement> rows) {
  for (const auto& [key, value] : environment) {
    check_environment(key, value);
    out << "# " << key << ": " << value << '\n';
  }
  const auto& columns = raw_columns();
  for (std::size_t i = 0; i < columns.size(); ++i)
    out << (i ? "," : "") << columns[i];
  out << '\n';
  for (const RawMeasurement& r : rows) {
    const bool gemm = is_gemm(r.benchmark) || is_attention(r.benchmark);
    const bool transfer = is_transfer(r.benchmark);
    const bool memory = is_memory(r.benchmark);
    out << to_string(r.benchmark) << ',';
    if (gemm)
      out << fmt::format("{},{},{},{},{}", to_string(r.dtype), r.m, r.n, r.k, r.batch);
    else
      out << ",,,,";
    out << ',' << (transfer || memory ? std::to_string(r.bytes.count()) : "");
    out << ',' << (transfer ? std::to_string(r.group_size) : "");
    out << ',' << (transfer ? std::string(to_string(r.tier)) : "");
    out << ',' << cell_text(r.algorithm);
    out << fmt::format(",{:.9e},{}", r.time.seconds(), r.repetitions);
    out << ',' << (gemm ? fmt::format("{:.0f}", r.flops.count()) : "");
    out << ',' << (memory ? std::to_string(r.bytes_moved.count()) : "");
    out << ',' << (r.verified ? "yes" : "no") << '\n';
  }
}

}  // namespace trainsim::calibrate
