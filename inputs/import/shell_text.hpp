#pragma once
// Internal to inputs/import/: the launch script's text and positions for the bash reader
// (shell_script.cpp). A Script is the source (CRLF read as LF) that errors point into; a Text is
// characters that each remember where they were written, through variables, arrays and
// expansions, so a word split out of "$FLAGS" points at its own column.

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "models/errors.hpp"

namespace trainsim::inputs::import::detail {

/// ${...}, $((...)), quotes inside them, `if` blocks and test parentheses nest at most this deep.
constexpr int kMaxNesting = 64;

/// 1-based line and column (columns count bytes).
struct Position {
  int line = 1;
  int column = 1;
};

inline bool is_name_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
inline bool is_name_char(char c) {
  return is_name_start(c) || is_digit(c);
}
inline bool is_blank(char c) {
  return c == ' ' || c == '\t';
}
/// Characters that end an unquoted word.
inline bool is_word_end(char c) {
  return is_blank(c) || c == '\n' || std::string_view(";&|<>()").find(c) != std::string_view::npos;
}
inline bool is_name(std::string_view s) {
  return !s.empty() && is_name_start(s.front()) && std::all_of(s.begin(), s.end(), is_name_char);
}
inline bool is_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_digit);
}

/// At most `n` characters of `s`, for quoting input in a message.
std::string excerpt(std::string_view s, std::size_t n = 60);

/// The script: its text (CRLF line ends read as LF, as the user meant) and its file.
class Script {
 public:
  Script(std::string_view text, std::filesystem::path file);
  std::string_view text() const { return text_; }
  const std::filesystem::path& file() const { return file_; }
  SourceLocation location(Position at) const { return {file_, at.line, at.column}; }
  std::string where(Position at) const { return location(at).to_string(); }
  [[noreturn]] void fail(Position at, const std::string& message) const {
    throw ConfigError(location(at), message);
  }

 private:
  std::string text_;
  std::filesystem::path file_;
};

/// Characters and where each was written. A run written side by side on one line shares one
/// origin, so a value costs a few origins, not one per character.
class Text {
 public:
  /// `chars` as if written at `where` (results of $((...)), $0, $#).
  static Text at(std::string_view chars, Position where);
  const std::string& chars() const { return chars_; }
  bool empty() const { return chars_.empty(); }
  std::size_t size() const { return chars_.size(); }
  /// Memory it holds, for the expansion budget.
  std::size_t cost() const {
    return sizeof(Text) + chars_.size() + origins_.size() * sizeof(Origin);
  }

  void push_back(char c, Position at) {
    add_origin(chars_.size(), at);
    chars_.push_back(c);
  }
  /// Appends other's characters [begin, end) with their positions.
  void append(const Text& other, std::size_t begin = 0, std::size_t end = std::string::npos);
  Position position_at(std::size_t offset) const;

 private:
  struct Origin {
    std::size_t offset;
    Position at;
  };
  void add_origin(std::size_t offset, Position at);
  std::string chars_;
  std::vector<Origin> origins_;
};

}  // namespace trainsim::inputs::import::detail
