#include "inputs/quantity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <system_error>

namespace trainsim::inputs {
namespace {

struct Prefix {
  std::string_view text;
  double factor;
  bool binary;
};

constexpr std::array<Prefix, 11> prefixes{{
    {"", 1.0, false},
    {"k", 1e3, false},
    {"M", 1e6, false},
    {"G", 1e9, false},
    {"T", 1e12, false},
    {"P", 1e15, false},
    {"Ki", 1024.0, true},
    {"Mi", 1048576.0, true},
    {"Gi", 1073741824.0, true},
    {"Ti", 1099511627776.0, true},
    {"Pi", 1125899906842624.0, true},
}};

struct TimeUnit {
  std::string_view text;
  double seconds;
};

constexpr std::array<TimeUnit, 8> time_units{{
    {"h", 3600.0},
    {"min", 60.0},
    {"s", 1.0},
    {"ms", 1e-3},
    {"us", 1e-6},
    {"\xC2\xB5s", 1e-6},  // µs
    {"ns", 1e-9},
    {"ps", 1e-12},
}};

/// What a unit string means: its dimension and the factor to base units.
struct UnitMeaning {
  Dimension dimension;
  double factor;
};

/// `unit` is `prefix + base` for one of the prefixes (binary ones only when allowed).
std::optional<double> prefixed(std::string_view unit, std::string_view base, bool allow_binary) {
  if (unit.size() < base.size() || unit.substr(unit.size() - base.size()) != base) {
    return std::nullopt;
  }
  const std::string_view prefix = unit.substr(0, unit.size() - base.size());
  for (const Prefix& p : prefixes) {
    if (p.text == prefix && (allow_binary || !p.binary)) return p.factor;
  }
  return std::nullopt;
}

std::optional<UnitMeaning> classify(std::string_view unit) {
  for (const TimeUnit& t : time_units) {
    if (t.text == unit) return UnitMeaning{Dimension::time, t.seconds};
  }
  if (auto f = prefixed(unit, "B/s", true)) return UnitMeaning{Dimension::bandwidth, *f};
  if (auto f = prefixed(unit, "b/s", false)) return UnitMeaning{Dimension::bandwidth, *f / 8.0};
  if (auto f = prefixed(unit, "B", true)) return UnitMeaning{Dimension::bytes, *f};
  if (auto f = prefixed(unit, "FLOP/s", false)) return UnitMeaning{Dimension::flop_rate, *f};
  if (auto f = prefixed(unit, "FLOP", false)) return UnitMeaning{Dimension::flops, *f};
  if (unit == "/GPU-day") return UnitMeaning{Dimension::interruption_rate, 1.0 / 86400.0};
  if (unit == "/GPU-h") return UnitMeaning{Dimension::interruption_rate, 1.0 / 3600.0};
  return std::nullopt;
}

std::string_view valid_units(Dimension d) {
  switch (d) {
    case Dimension::time:
      return "h, min, s, ms, us, ns, ps";
    case Dimension::bytes:
      return "B, kB, MB, GB, TB, PB (SI) or KiB, MiB, GiB, TiB, PiB (binary)";
    case Dimension::bandwidth:
      return "B/s, kB/s, MB/s, GB/s, TB/s (SI), KiB/s, MiB/s, GiB/s, TiB/s (binary) or "
             "kb/s, Mb/s, Gb/s, Tb/s (bits)";
    case Dimension::flop_rate:
      return "FLOP/s, kFLOP/s, MFLOP/s, GFLOP/s, TFLOP/s, PFLOP/s";
    case Dimension::flops:
      return "FLOP, kFLOP, MFLOP, GFLOP, TFLOP, PFLOP";
    case Dimension::interruption_rate:
      return "/GPU-day, /GPU-h";
  }
  return "";
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t");
  return s.substr(first, last - first + 1);
}

[[noreturn]] void fail(std::string_view text, Dimension expected, std::string_view reason) {
  throw QuantityError(fmt::format("expected {} such as {}, got \"{}\" ({})", describe(expected),
                                  examples(expected), text, reason));
}

}  // namespace

std::string_view describe(Dimension d) {
  switch (d) {
    case Dimension::time:
      return "a time";
    case Dimension::bytes:
      return "a size in bytes";
    case Dimension::bandwidth:
      return "a bandwidth";
    case Dimension::flop_rate:
      return "a FLOP rate";
    case Dimension::flops:
      return "a FLOP count";
    case Dimension::interruption_rate:
      return "an interruption rate per GPU";
  }
  return "a quantity";
}

std::string_view examples(Dimension d) {
  switch (d) {
    case Dimension::time:
      return "\"4 us\" or \"1.5 ms\"";
    case Dimension::bytes:
      return "\"80 GiB\" or \"40 MB\"";
    case Dimension::bandwidth:
      return "\"300 GB/s\" or \"200 Gb/s\"";
    case Dimension::flop_rate:
      return "\"312 TFLOP/s\"";
    case Dimension::flops:
      return "\"1 GFLOP\"";
    case Dimension::interruption_rate:
      return "\"1.4e-4 /GPU-day\"";
  }
  return "";
}

double parse_quantity(std::string_view raw, Dimension expected) {
  const std::string_view text = trim(raw);
  if (text.empty()) fail(raw, expected, "empty value");
  const bool negative = text.front() == '-';
  const char* begin = text.data() + (negative ? 1 : 0);
  const char* end = text.data() + text.size();
  // from_chars would also accept "inf" and "nan": require a digit or a decimal point first.
  if (begin == end || !(std::isdigit(static_cast<unsigned char>(*begin)) || *begin == '.')) {
    fail(raw, expected, "not a number followed by a unit");
  }
  double value = 0.0;
  const auto [rest, ec] = std::from_chars(begin, end, value, std::chars_format::general);
  if (ec != std::errc() || !std::isfinite(value)) fail(raw, expected, "not a finite number");
  if (negative && value != 0.0) fail(raw, expected, "negative values are not allowed");
  if (negative) fail(raw, expected, "a sign is not allowed");
  const std::string_view unit = trim(std::string_view(rest, static_cast<std::size_t>(end - rest)));
  if (unit.empty()) fail(raw, expected, "no unit; units are mandatory");
  const std::optional<UnitMeaning> meaning = classify(unit);
  if (!meaning) {
    if (expected == Dimension::bytes && prefixed(unit, "b", false)) {
      fail(raw, expected, fmt::format("\"{}\" is bits; sizes are written in bytes (B)", unit));
    }
    fail(raw, expected,
         fmt::format("unknown unit \"{}\"; valid units: {}", unit, valid_units(expected)));
  }
  if (meaning->dimension != expected) {
    fail(raw, expected,
         fmt::format("\"{}\" is a unit of {}, not of {}", unit, describe(meaning->dimension),
                     describe(expected)));
  }
  return value * meaning->factor;
}

Time parse_time(std::string_view text) {
  const double seconds = parse_quantity(text, Dimension::time);
  // The simulator's clock counts picoseconds in 64 bits (about ±106 days).
  if (seconds > 1e6) fail(text, Dimension::time, "too large (at most 1e6 s)");
  return Time::from_seconds(seconds);
}

Bytes parse_bytes(std::string_view text) {
  const double bytes = parse_quantity(text, Dimension::bytes);
  if (bytes >= 9.2e18) fail(text, Dimension::bytes, "too large");
  const double whole = std::round(bytes);
  // Relative tolerance: decimal mantissas such as "0.1 kB" are not exact in binary.
  if (std::abs(bytes - whole) > 1e-9 * std::max(1.0, bytes)) {
    fail(text, Dimension::bytes, "not a whole number of bytes");
  }
  return Bytes::of(static_cast<std::int64_t>(whole));
}

Bandwidth parse_bandwidth(std::string_view text) {
  return Bandwidth::bytes_per_second(parse_quantity(text, Dimension::bandwidth));
}

FlopRate parse_flop_rate(std::string_view text) {
  return FlopRate::flops_per_second(parse_quantity(text, Dimension::flop_rate));
}

Flops parse_flops(std::string_view text) {
  return Flops::of(parse_quantity(text, Dimension::flops));
}

InterruptionRate parse_interruption_rate(std::string_view text) {
  return InterruptionRate::per_gpu_second(parse_quantity(text, Dimension::interruption_rate));
}

}  // namespace trainsim::inputs
