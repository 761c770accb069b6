#pragma once
// Physical quantities with their unit in the type. Only physically meaningful operations
// compile: Bytes / Bandwidth -> Time, Flops / FlopRate -> Time, Bytes + Time does not
// (tests/compile_fail proves it). Values are built with named constructors only.

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace trainsim {

namespace detail {
/// Converts to int64 or throws: a quantity outside the integer range (or NaN) would otherwise
/// wrap silently and make a prediction faster, not fail (llround is UB out of range).
inline std::int64_t checked_round(double value, const char* what) {
  if (!(std::fabs(value) < 9.2e18)) {
    throw std::out_of_range(std::string(what) + " of " + std::to_string(value) +
                            " is outside the representable range");
  }
  return std::llround(value);
}
inline std::int64_t checked_add(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) throw std::out_of_range(std::string(what) + " overflow");
  return sum;
}
inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) {
    throw std::out_of_range(std::string(what) + " overflow");
  }
  return product;
}
}  // namespace detail

/// Simulated time: a signed integer count of picoseconds (range ±106 days).
/// Integer so that event ordering is exact and outputs are byte-identical across runs.
class Time {
 public:
  constexpr Time() = default;
  static constexpr Time zero() { return Time(0); }
  static constexpr Time max() { return Time(std::numeric_limits<std::int64_t>::max()); }
  static constexpr Time from_ps(std::int64_t ps) { return Time(ps); }
  /// Rounds to the nearest picosecond.
  static Time from_ns(double ns) { return from_seconds(ns * 1e-9); }
  static Time from_us(double us) { return from_seconds(us * 1e-6); }
  static Time from_ms(double ms) { return from_seconds(ms * 1e-3); }
  /// Throws std::out_of_range beyond ±106 days or for NaN.
  static Time from_seconds(double s) {
    return Time(detail::checked_round(s * 1e12, "time in picoseconds"));
  }

  constexpr std::int64_t ps() const { return ps_; }
  constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }
  constexpr double ms() const { return static_cast<double>(ps_) * 1e-9; }
  constexpr double us() const { return static_cast<double>(ps_) * 1e-6; }

  constexpr auto operator<=>(const Time&) const = default;
  // Sums and products are checked: an overflowing clock must fail, not wrap.
  Time operator+(Time o) const { return Time(detail::checked_add(ps_, o.ps_, "time")); }
  Time operator-(Time o) const { return Time(detail::checked_add(ps_, -o.ps_, "time")); }
  Time& operator+=(Time o) { return *this = *this + o; }
  Time& operator-=(Time o) { return *this = *this - o; }
  Time operator*(std::int64_t k) const { return Time(detail::checked_mul(ps_, k, "time")); }
  /// Scaling by a real factor rounds to the nearest picosecond.
  Time scaled(double factor) const {
    return Time(detail::checked_round(static_cast<double>(ps_) * factor, "time in picoseconds"));
  }
  /// Ratio of two durations (dimensionless).
  constexpr double operator/(Time o) const {
    return static_cast<double>(ps_) / static_cast<double>(o.ps_);
  }

 private:
  constexpr explicit Time(std::int64_t ps) : ps_(ps) {}
  std::int64_t ps_ = 0;
};
inline Time operator*(std::int64_t k, Time t) {
  return t * k;
}

/// A whole number of bytes (memory sizes, message sizes).
class Bytes {
 public:
  constexpr Bytes() = default;
  static constexpr Bytes zero() { return Bytes(0); }
  static constexpr Bytes of(std::int64_t n) { return Bytes(n); }
  /// Rounds to the nearest byte (used for fractional shares such as 2(n-1)/n of a buffer).
  static Bytes rounded(double n) { return Bytes(detail::checked_round(n, "byte count")); }

  constexpr std::int64_t count() const { return n_; }
  constexpr double as_double() const { return static_cast<double>(n_); }

  constexpr auto operator<=>(const Bytes&) const = default;
  Bytes operator+(Bytes o) const { return Bytes(detail::checked_add(n_, o.n_, "bytes")); }
  Bytes operator-(Bytes o) const { return Bytes(detail::checked_add(n_, -o.n_, "bytes")); }
  Bytes& operator+=(Bytes o) { return *this = *this + o; }
  Bytes& operator-=(Bytes o) { return *this = *this - o; }
  Bytes operator*(std::int64_t k) const { return Bytes(detail::checked_mul(n_, k, "bytes")); }
  /// Exact integer division; callers check divisibility where it matters.
  constexpr Bytes operator/(std::int64_t k) const { return Bytes(n_ / k); }
  Bytes scaled(double factor) const { return rounded(static_cast<double>(n_) * factor); }
  constexpr double operator/(Bytes o) const { return as_double() / o.as_double(); }

 private:
  constexpr explicit Bytes(std::int64_t n) : n_(n) {}
  std::int64_t n_ = 0;
};
inline Bytes operator*(std::int64_t k, Bytes b) {
  return b * k;
}

/// Floating-point operations (a count, not a rate). Double: a 1T-parameter iteration
/// exceeds 2^63 FLOPs; per-op counts below 2^53 are exact.
class Flops {
 public:
  constexpr Flops() = default;
  static constexpr Flops zero() { return Flops(0.0); }
  static constexpr Flops of(double n) { return Flops(n); }
  constexpr double count() const { return n_; }

  constexpr auto operator<=>(const Flops&) const = default;
  constexpr Flops operator+(Flops o) const { return Flops(n_ + o.n_); }
  constexpr Flops operator-(Flops o) const { return Flops(n_ - o.n_); }
  constexpr Flops& operator+=(Flops o) {
    n_ += o.n_;
    return *this;
  }
  constexpr Flops operator*(double k) const { return Flops(n_ * k); }
  constexpr double operator/(Flops o) const { return n_ / o.n_; }

 private:
  constexpr explicit Flops(double n) : n_(n) {}
  double n_ = 0.0;
};

/// Data rate in bytes per second (SI: 1 GB/s = 1e9 B/s).
class Bandwidth {
 public:
  constexpr Bandwidth() = default;
  static constexpr Bandwidth bytes_per_second(double v) { return Bandwidth(v); }
  static constexpr Bandwidth gb_per_s(double v) { return Bandwidth(v * 1e9); }
  constexpr double bytes_per_second() const { return v_; }
  constexpr double gb_per_s() const { return v_ * 1e-9; }

  constexpr auto operator<=>(const Bandwidth&) const = default;
  constexpr Bandwidth operator+(Bandwidth o) const { return Bandwidth(v_ + o.v_); }
  constexpr Bandwidth operator-(Bandwidth o) const { return Bandwidth(v_ - o.v_); }
  /// Efficiency factors and shares.
  constexpr Bandwidth operator*(double k) const { return Bandwidth(v_ * k); }
  constexpr Bandwidth operator/(double k) const { return Bandwidth(v_ / k); }
  constexpr double operator/(Bandwidth o) const { return v_ / o.v_; }

 private:
  constexpr explicit Bandwidth(double v) : v_(v) {}
  double v_ = 0.0;
};

/// Compute rate in FLOP per second.
class FlopRate {
 public:
  constexpr FlopRate() = default;
  static constexpr FlopRate flops_per_second(double v) { return FlopRate(v); }
  static constexpr FlopRate tflops(double v) { return FlopRate(v * 1e12); }
  constexpr double flops_per_second() const { return v_; }
  constexpr double tflops() const { return v_ * 1e-12; }

  constexpr auto operator<=>(const FlopRate&) const = default;
  constexpr FlopRate operator*(double k) const { return FlopRate(v_ * k); }
  constexpr FlopRate operator/(double k) const { return FlopRate(v_ / k); }
  constexpr double operator/(FlopRate o) const { return v_ / o.v_; }

 private:
  constexpr explicit FlopRate(double v) : v_(v) {}
  double v_ = 0.0;
};

/// Interruptions of a job per GPU it holds and per second (a Poisson rate; files write it per
/// GPU-day). A job on n GPUs is interrupted at n times this rate.
class InterruptionRate {
 public:
  constexpr InterruptionRate() = default;
  static constexpr InterruptionRate per_gpu_second(double v) { return InterruptionRate(v); }
  static constexpr InterruptionRate per_gpu_day(double v) { return InterruptionRate(v / 86400.0); }
  constexpr double per_gpu_second() const { return v_; }
  constexpr double per_gpu_day() const { return v_ * 86400.0; }

  constexpr auto operator<=>(const InterruptionRate&) const = default;
  constexpr InterruptionRate operator+(InterruptionRate o) const {
    return InterruptionRate(v_ + o.v_);
  }
  constexpr InterruptionRate operator*(double k) const { return InterruptionRate(v_ * k); }

 private:
  constexpr explicit InterruptionRate(double v) : v_(v) {}
  double v_ = 0.0;
};

// Physical relations. Division rounds time to the nearest picosecond.
inline Time operator/(Bytes b, Bandwidth bw) {
  return Time::from_seconds(b.as_double() / bw.bytes_per_second());
}
inline Time operator/(Flops f, FlopRate r) {
  return Time::from_seconds(f.count() / r.flops_per_second());
}
inline Bandwidth operator/(Bytes b, Time t) {
  return Bandwidth::bytes_per_second(b.as_double() / t.seconds());
}
inline FlopRate operator/(Flops f, Time t) {
  return FlopRate::flops_per_second(f.count() / t.seconds());
}
inline Bytes operator*(Bandwidth bw, Time t) {
  return Bytes::rounded(bw.bytes_per_second() * t.seconds());
}
inline Flops operator*(FlopRate r, Time t) {
  return Flops::of(r.flops_per_second() * t.seconds());
}

}  // namespace trainsim
