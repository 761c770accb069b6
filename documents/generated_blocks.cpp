#include "documents/generated_blocks.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace trainsim::documents {
namespace {

constexpr std::string_view kPrefix = "<!-- trainsim:";
constexpr std::string_view kBegin = "<!-- trainsim:generated ";
constexpr std::string_view kEnd = "<!-- trainsim:end -->";
constexpr std::string_view kClose = " -->";

std::string_view without_line_end(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
    line.remove_suffix(1);
  return line;
}

}  // namespace

std::string begin_marker(const std::string& report, const std::string& block) {
  return fmt::format("{}{}:{}{}", kBegin, report, block, kClose);
}

std::string end_marker() {
  return std::string(kEnd);
}

MarkedText parse_marked_text(std::string_view text, const std::string& file,
                             const std::string& report) {
  MarkedText out;
  std::string literal;
  bool inside = false;
  int open_line = 0;
  int line_number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = text.find('\n', pos);
    const std::size_t next = end == std::string_view::npos ? text.size() : end + 1;
    const std::string_view line = text.substr(pos, next - pos);
    const std::string_view content = without_line_end(line);
    pos = next;
    ++line_number;
    const auto where = [&] { return fmt::format("{}:{}", file, line_number); };
    if (content.rfind(kPrefix, 0) != 0) {
      if (!inside) literal += line;
      continue;
    }
    if (content == kEnd) {
      if (!inside) {
        throw std::invalid_argument(
            fmt::format("{}: '{}' outside a generated block", where(), kEnd));
      }
      inside = false;
      literal += line;
      continue;
    }
    const bool begin = content.rfind(kBegin, 0) == 0 &&
                       content.size() > kBegin.size() + kClose.size() &&
                       content.substr(content.size() - kClose.size()) == kClose;
    if (!begin) {
      throw std::invalid_argument(fmt::format("{}: malformed marker '{}'; valid: '{}' or '{}'",
                                              where(), content, begin_marker(report, "BLOCK"),
                                              kEnd));
    }
    if (inside) {
      throw std::invalid_argument(fmt::format(
          "{}: a generated block begins inside the block opened at line {}", where(), open_line));
    }
    const std::string_view id =
        content.substr(kBegin.size(), content.size() - kBegin.size() - kClose.size());
    const std::size_t colon = id.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == id.size()) {
      throw std::invalid_argument(fmt::format("{}: malformed marker '{}'; valid: '{}'", where(),
                                              content, begin_marker(report, "BLOCK")));
    }
    if (id.substr(0, colon) != report) {
      throw std::invalid_argument(fmt::format("{}: a block of report '{}' in the README of '{}'",
                                              where(), id.substr(0, colon), report));
    }
    literal += line;
    out.segments.push_back({false, std::move(literal), 0});
    literal.clear();
    out.segments.push_back({true, std::string(id.substr(colon + 1)), line_number});
    inside = true;
    open_line = line_number;
  }
  if (inside) {
    throw std::invalid_argument(fmt::format(
        "{}:{}: generated block not terminated (no '{}' after it)", file, open_line, kEnd));
  }
  out.segments.push_back({false, std::move(literal), 0});
  return out;
}

std::string fill_marked_text(const MarkedText& marked,
                             const std::map<std::string, std::string>& blocks,
                             const std::string& file) {
  std::string out;
  for (const MarkedText::Segment& s : marked.segments) {
    if (!s.generated) {
      out += s.text;
      continue;
    }
    const auto found = blocks.find(s.text);
    if (found == blocks.end()) {
      std::string known;
      for (const auto& [name, text] : blocks)
        known += (known.empty() ? "" : ", ") + name;
      throw std::invalid_argument(fmt::format("{}:{}: unknown generated block '{}'; known: {}",
                                              file, s.line, s.text, known));
    }
    out += "\n" + found->second + "\n";
  }
  return out;
}

}  // namespace trainsim::documents
