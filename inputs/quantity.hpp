#pragma once
// The one parser that owns units in input files: "600 GB/s", "200 Gb/s", "1.5 us", "80 GiB",
// "312 TFLOP/s", "1 GFLOP",
// "1.4e-4 /GPU-day". SI prefixes (k M G T P) are powers of 10, binary prefixes
// (Ki Mi Gi Ti Pi) powers of 2; "B" is bytes and "b" bits (bandwidth only). A unit is mandatory.

#include <stdexcept>
#include <string>
#include <string_view>

#include "units/units.hpp"

namespace trainsim::inputs {

/// The physical dimension a quantity string is expected to have.
enum class Dimension { time, bytes, bandwidth, flop_rate, flops, interruption_rate };

/// "a time", "a size in bytes", ... (for messages).
std::string_view describe(Dimension d);
/// The "such as ..." examples used in messages, e.g. `"300 GB/s" or "200 Gb/s"`.
std::string_view examples(Dimension d);

/// A quantity string that is not a valid value of the expected dimension. The message says what
/// was expected and what was wrong, without a file location (the YAML reader adds it).
class QuantityError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// "1.5 us", "4 ns", "2 ms", "1 s"; rounds to the nearest picosecond. Throws QuantityError.
Time parse_time(std::string_view text);
/// "80 GiB", "40 MB", "512 KiB", "4096 B"; must be a whole number of bytes. Throws QuantityError.
Bytes parse_bytes(std::string_view text);
/// "600 GB/s", "25 GiB/s", "200 Gb/s" (bits, divided by 8). Throws QuantityError.
Bandwidth parse_bandwidth(std::string_view text);
/// "312 TFLOP/s" (SI prefixes only). Throws QuantityError.
FlopRate parse_flop_rate(std::string_view text);
/// "1 GFLOP" (SI prefixes only). Throws QuantityError.
Flops parse_flops(std::string_view text);
/// "1.4e-4 /GPU-day", "6e-6 /GPU-h": interruptions per GPU and unit of time. Throws
/// QuantityError.
InterruptionRate parse_interruption_rate(std::string_view text);

/// The value of `text` in base units (seconds, bytes, bytes/s, FLOP/s, FLOP) after checking
/// that it has dimension `expected`; the common core of the parse_* functions.
double parse_quantity(std::string_view text, Dimension expected);

}  // namespace trainsim::inputs
