#include "units/format.hpp"

#include <array>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace trainsim {
namespace {

struct Prefix {
  double scale;
  const char* name;
};

// Picks the largest prefix that keeps |value| >= 1 and prints 4 significant digits.
template <std::size_t N>
std::string scaled(double value, const std::array<Prefix, N>& prefixes, const char* unit) {
  const double magnitude = std::fabs(value);
  const Prefix* chosen = &prefixes.back();
  for (const Prefix& p : prefixes) {
    if (magnitude >= p.scale) {
      chosen = &p;
      break;
    }
  }
  return fmt::format("{:.4g} {}{}", value / chosen->scale, chosen->name, unit);
}

constexpr std::array<Prefix, 6> kSi{
    {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1.0, ""}}};
constexpr std::array<Prefix, 7> kSiFlops{
    {{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1.0, ""}}};

}  // namespace

std::string to_string(Time t) {
  constexpr std::array<Prefix, 5> kTime{
      {{1e12, "s"}, {1e9, "ms"}, {1e6, "us"}, {1e3, "ns"}, {1.0, "ps"}}};
  return scaled(static_cast<double>(t.ps()), kTime, "");
}

std::string to_string(Bytes b) {
  return scaled(b.as_double(), kSi, "B");
}
std::string to_string(Flops f) {
  return scaled(f.count(), kSiFlops, "FLOP");
}
std::string to_string(Bandwidth bw) {
  return scaled(bw.bytes_per_second(), kSi, "B/s");
}
std::string to_string(FlopRate r) {
  return scaled(r.flops_per_second(), kSiFlops, "FLOP/s");
}

std::string to_string(InterruptionRate r) {
  return fmt::format("{:.4g} /GPU-day", r.per_gpu_day());
}

std::string to_gib_string(Bytes b) {
  return fmt::format("{:.4g} GiB", b.as_double() / (1024.0 * 1024.0 * 1024.0));
}

}  // namespace trainsim
