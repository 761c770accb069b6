#include <doctest/doctest.h>

#include "units/doctest_printers.hpp"
#include "units/format.hpp"
#include "units/units.hpp"

using namespace trainsim;

TEST_CASE("time is integer picoseconds with named constructors") {
  CHECK(Time::from_us(4).ps() == 4'000'000);
  CHECK(Time::from_ns(1.5).ps() == 1500);
  CHECK(Time::from_ms(2) + Time::from_us(500) == Time::from_us(2500));
  CHECK(Time::from_seconds(1.0).seconds() == doctest::Approx(1.0));
  CHECK(Time::from_ps(1) > Time::zero());
  CHECK(Time::from_us(3) / Time::from_us(2) == doctest::Approx(1.5));
}

TEST_CASE("bytes over bandwidth is a time, flops over rate is a time") {
  const Time t = Bytes::of(300'000'000) / Bandwidth::gb_per_s(300);
  CHECK(t == Time::from_ms(1));
  const Time g = Flops::of(312e12) / FlopRate::tflops(312);
  CHECK(g == Time::from_seconds(1));
  CHECK((Bytes::of(1000) / Time::from_us(1)).gb_per_s() == doctest::Approx(1.0));
  CHECK((FlopRate::tflops(100) * Time::from_ms(10)).count() == doctest::Approx(1e12));
  CHECK(Bandwidth::gb_per_s(25) * Time::from_seconds(2) == Bytes::of(50'000'000'000));
}

TEST_CASE("fractional byte shares round to the nearest byte") {
  CHECK(Bytes::of(1000).scaled(2.0 * 7.0 / 8.0) == Bytes::of(1750));
  CHECK(Bytes::rounded(2.5) == Bytes::of(3));
}

TEST_CASE("quantities print with their unit") {
  CHECK(to_string(Time::from_us(1250)) == "1.25 ms");
  CHECK(to_string(Time::from_ps(12)) == "12 ps");
  CHECK(to_string(Bytes::of(1'500'000'000)) == "1.5 GB");
  CHECK(to_string(Bandwidth::gb_per_s(300)) == "300 GB/s");
  CHECK(to_string(FlopRate::tflops(312)) == "312 TFLOP/s");
  CHECK(to_string(Flops::of(3.2e18)) == "3.2 EFLOP");
  CHECK(to_gib_string(Bytes::of(80LL * 1024 * 1024 * 1024)) == "80 GiB");
  CHECK(fmt::format("{}", Time::from_seconds(2)) == "2 s");
}

TEST_CASE("quantities outside the integer range throw instead of wrapping") {
  CHECK_THROWS_AS(Time::from_seconds(1e30), std::out_of_range);
  CHECK_THROWS_AS(Time::from_seconds(std::nan("")), std::out_of_range);
  CHECK_THROWS_AS(Time::max() + Time::from_ps(1), std::out_of_range);
  CHECK_THROWS_AS(Time::from_seconds(1e6) * 1'000'000, std::out_of_range);
  CHECK_THROWS_AS(Bytes::of(1) / Bandwidth::bytes_per_second(1e-300), std::out_of_range);
  CHECK_THROWS_AS(Bytes::of(std::int64_t{1} << 62) * 4, std::out_of_range);
  CHECK_THROWS_AS(Bytes::rounded(1e19), std::out_of_range);
  CHECK(Time::from_seconds(9e6) > Time::from_seconds(8e6));  // 104 days still fits
}
