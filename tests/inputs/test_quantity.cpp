#include <doctest/doctest.h>

#include <string>

#include "inputs/quantity.hpp"

using namespace trainsim;
using namespace trainsim::inputs;

namespace {
std::string error_of(auto parse, std::string_view text) {
  try {
    parse(text);
  } catch (const QuantityError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("quantity: bandwidths with SI, binary and bit units") {
  CHECK(parse_bandwidth("600 GB/s").bytes_per_second() == doctest::Approx(600e9));
  CHECK(parse_bandwidth("25 GB/s").gb_per_s() == doctest::Approx(25.0));
  CHECK(parse_bandwidth("200 Gb/s").gb_per_s() == doctest::Approx(25.0));  // bits -> bytes
  CHECK(parse_bandwidth("400 Gb/s") == parse_bandwidth("50 GB/s"));
  CHECK(parse_bandwidth("1 GiB/s").bytes_per_second() == doctest::Approx(1073741824.0));
  CHECK(parse_bandwidth("15.75GB/s").gb_per_s() == doctest::Approx(15.75));  // no space
  CHECK(parse_bandwidth("  1e3 MB/s ").gb_per_s() == doctest::Approx(1.0));
}

TEST_CASE("quantity: times round to picoseconds") {
  CHECK(parse_time("1.5 us") == Time::from_ps(1'500'000));
  CHECK(parse_time("4 ns") == Time::from_ps(4'000));
  CHECK(parse_time("2 ms") == Time::from_ms(2));
  CHECK(parse_time("1 s") == Time::from_seconds(1));
  CHECK(parse_time("7 ps") == Time::from_ps(7));
  CHECK(parse_time("0 us") == Time::zero());
  CHECK(parse_time("3 min") == Time::from_seconds(180));
  CHECK(parse_time("1.5 h") == Time::from_seconds(5400));
}

TEST_CASE("quantity: interruption rates per GPU-day or GPU-hour") {
  CHECK(parse_interruption_rate("8.64e-3 /GPU-day").per_gpu_second() == doctest::Approx(1e-7));
  CHECK(parse_interruption_rate("3.6e-4 /GPU-h").per_gpu_second() == doctest::Approx(1e-7));
  CHECK(parse_interruption_rate("2e-4 /GPU-day").per_gpu_day() == doctest::Approx(2e-4));
  CHECK_THROWS_WITH_AS(parse_interruption_rate("2e-4 /day"), doctest::Contains("/GPU-day, /GPU-h"),
                       QuantityError);
  CHECK_THROWS_WITH_AS(parse_interruption_rate("2e-4 h"), doctest::Contains("a unit of a time"),
                       QuantityError);
}

TEST_CASE("quantity: sizes are exact integers with SI or binary prefixes") {
  CHECK(parse_bytes("80 GiB") == Bytes::of(80LL << 30));
  CHECK(parse_bytes("40 MB") == Bytes::of(40'000'000));
  CHECK(parse_bytes("512 KiB") == Bytes::of(524'288));
  CHECK(parse_bytes("4096 B") == Bytes::of(4096));
  CHECK(parse_bytes("1.5 KiB") == Bytes::of(1536));
  CHECK(parse_bytes("0.1 kB") == Bytes::of(100));
  CHECK(parse_bytes("2039 GB") == Bytes::of(2'039'000'000'000));
}

TEST_CASE("quantity: FLOP counts and rates") {
  CHECK(parse_flop_rate("312 TFLOP/s").tflops() == doctest::Approx(312.0));
  CHECK(parse_flop_rate("19.5 TFLOP/s").flops_per_second() == doctest::Approx(19.5e12));
  CHECK(parse_flops("1 GFLOP").count() == doctest::Approx(1e9));
  CHECK(parse_flops("1.1 TFLOP").count() == doctest::Approx(1.1e12));
}

TEST_CASE("quantity: errors say what was expected and what is wrong") {
  CHECK(error_of(parse_bandwidth, "300") ==
        "expected a bandwidth such as \"300 GB/s\" or \"200 Gb/s\", got \"300\" (no unit; units "
        "are mandatory)");
  const std::string wrong_dim = error_of(parse_bytes, "4 us");
  CHECK(wrong_dim.find("expected a size in bytes such as \"80 GiB\"") != std::string::npos);
  CHECK(wrong_dim.find("\"us\" is a unit of a time") != std::string::npos);
  CHECK(error_of(parse_time, "-1 us").find("negative values are not allowed") != std::string::npos);
  CHECK(error_of(parse_time, "nan us").find("not a number") != std::string::npos);
  CHECK(error_of(parse_time, "inf us").find("not a number") != std::string::npos);
  CHECK(error_of(parse_time, "fast").find("not a number") != std::string::npos);
  CHECK(error_of(parse_time, "").find("empty value") != std::string::npos);
  CHECK(error_of(parse_bytes, "1.5 B").find("not a whole number of bytes") != std::string::npos);
  CHECK(error_of(parse_bytes, "80 Gb").find("is bits") != std::string::npos);
  const std::string unknown = error_of(parse_bandwidth, "100 GBps");
  CHECK(unknown.find("unknown unit \"GBps\"") != std::string::npos);
  CHECK(unknown.find("Gb/s, Tb/s (bits)") != std::string::npos);
  // Bits are a bandwidth unit only; binary prefixes are not used for FLOPs.
  CHECK(error_of(parse_flops, "1 GiFLOP").find("unknown unit") != std::string::npos);
  CHECK(error_of(parse_flop_rate, "312 TFLOPS").find("unknown unit") != std::string::npos);
  CHECK(error_of(parse_flop_rate, "1 GFLOP").find("is a unit of a FLOP count") !=
        std::string::npos);
  CHECK(error_of(parse_bandwidth, "3 Gb").find("unknown unit") != std::string::npos);
}
