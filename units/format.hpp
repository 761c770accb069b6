#pragma once
// Text form of the quantities: "1.25 ms", "80 GB", "300 GB/s", "312 TFLOP/s". SI prefixes
// throughout (1 GB = 1e9 B); binary sizes are printed only where a caller asks for GiB.

#include <fmt/format.h>

#include <string>

#include "units/units.hpp"

namespace trainsim {

/// "1.25 ms": the largest unit in {s, ms, us, ns, ps} that keeps the value >= 1.
std::string to_string(Time t);
/// "1.5 GB": SI prefixes up to PB.
std::string to_string(Bytes b);
/// "1.2 PFLOP": SI prefixes up to EFLOP.
std::string to_string(Flops f);
/// "300 GB/s".
std::string to_string(Bandwidth bw);
/// "312 TFLOP/s".
std::string to_string(FlopRate r);
/// "1.424e-04 /GPU-day".
std::string to_string(InterruptionRate r);
/// "74.5 GiB": binary gibibytes, for memory capacities.
std::string to_gib_string(Bytes b);

}  // namespace trainsim

template <typename Quantity>
requires(std::same_as<Quantity, trainsim::Time> || std::same_as<Quantity, trainsim::Bytes> ||
         std::same_as<Quantity, trainsim::Flops> || std::same_as<Quantity, trainsim::Bandwidth> ||
         std::same_as<Quantity, trainsim::FlopRate> ||
         std::same_as<Quantity, trainsim::InterruptionRate>) struct fmt::formatter<Quantity>
    : fmt::formatter<std::string> {
  template <typename Context>
  auto format(const Quantity& q, Context& ctx) const {
    return fmt::formatter<std::string>::format(trainsim::to_string(q), ctx);
  }
};
