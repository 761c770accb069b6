#include "cli/positive_number.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>

namespace trainsim::cli {

double parse_positive(const std::string& flag, const std::string& text, bool suffixes) {
  const char* const end = text.data() + text.size();
  double value = 0.0;
  const auto [rest, error] = std::from_chars(text.data(), end, value);
  double scale = 1.0;
  bool ok = error == std::errc() && !text.empty();
  if (ok && rest != end) {
    const std::string suffix(rest, end);
    if (!suffixes)
      ok = false;
    else if (suffix == "k" || suffix == "K")
      scale = 1e3;
    else if (suffix == "M")
      scale = 1e6;
    else if (suffix == "B" || suffix == "G")
      scale = 1e9;
    else if (suffix == "T")
      scale = 1e12;
    else
      ok = false;
  }
  value *= scale;
  if (!ok || !std::isfinite(value) || value <= 0.0) {
    throw CLI::ValidationError(
        flag, fmt::format("expected a positive number{}; got '{}'",
                          suffixes ? " (e.g. 175e9, or with a suffix k, M, B or T: 175B, 1T)" : "",
                          text));
  }
  return value;
}

}  // namespace trainsim::cli
