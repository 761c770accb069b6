#pragma once
// Makes doctest failures print quantities with their unit ("expected 1.25 ms, got 1.3 ms").

#include <doctest/doctest.h>

#include "units/format.hpp"

namespace doctest {
template <>
struct StringMaker<trainsim::Time> {
  static String convert(trainsim::Time v) { return trainsim::to_string(v).c_str(); }
};
template <>
struct StringMaker<trainsim::Bytes> {
  static String convert(trainsim::Bytes v) {
    return fmt::format("{} ({} B)", trainsim::to_string(v), v.count()).c_str();
  }
};
template <>
struct StringMaker<trainsim::Flops> {
  static String convert(trainsim::Flops v) { return trainsim::to_string(v).c_str(); }
};
template <>
struct StringMaker<trainsim::Bandwidth> {
  static String convert(trainsim::Bandwidth v) { return trainsim::to_string(v).c_str(); }
};
template <>
struct StringMaker<trainsim::FlopRate> {
  static String convert(trainsim::FlopRate v) { return trainsim::to_string(v).c_str(); }
};
}  // namespace doctest
