#include "models/errors.hpp"

#include <fmt/format.h>

#include <string_view>

namespace trainsim {
namespace {

/// Length of the valid UTF-8 sequence starting at s[i] (2 to 4 bytes), or 0.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  if (lead >= 0xC2 && lead <= 0xDF)
    length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF)
    length = 3;
  else if (lead >= 0xF0 && lead <= 0xF4)
    length = 4;
  if (length == 0 || i + length > s.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  return length;
}

/// The message as a terminal can show it: an input's binary junk quoted in an error (a value
/// that is not text) comes out as \xNN escapes, not raw control bytes; printable ASCII, valid
/// UTF-8 and line breaks pass unchanged.
std::string printable(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  for (std::size_t i = 0; i < message.size();) {
    const auto c = static_cast<unsigned char>(message[i]);
    if ((c >= 0x20 && c < 0x7F) || c == '\n' || c == '\t') {
      out.push_back(static_cast<char>(c));
      ++i;
    } else if (const std::size_t n = c >= 0x80 ? utf8_sequence(message, i) : 0; n > 0) {
      out.append(message.substr(i, n));
      i += n;
    } else {
      out += fmt::format("\\x{:02X}", c);
      ++i;
    }
  }
  return out;
}

}  // namespace

std::string SourceLocation::to_string() const {
  if (line <= 0) return file.string();
  return fmt::format("{}:{}:{}", file.string(), line, column);
}

ConfigError::ConfigError(SourceLocation where, const std::string& message)
    : std::runtime_error(where.file.empty() && where.line <= 0
                             ? printable(message)
                             : fmt::format("{}: {}", where.to_string(), printable(message))),
      where_(std::move(where)),
      message_(printable(message)) {}

}  // namespace trainsim
