#include "models/errors.hpp"

#include <fmt/format.h>

namespace trainsim {

std::string SourceLocation::to_string() const {
  if (line <= 0) return file.string();
  return fmt::format("{}:{}:{}", file.string(), line, column);
}

ConfigError::ConfigError(SourceLocation where, const std::string& message)
    : std::runtime_error(fmt::format("{}: {}", where.to_string(), message)),
      where_(std::move(where)),
      message_(message) {}

}  // namespace trainsim
