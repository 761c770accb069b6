// The bash reader's source text and Text: characters that keep the position they were written
// at (shell_text.hpp).
#include "inputs/import/shell_text.hpp"

#include <utility>

namespace trainsim::inputs::import::detail {

std::string excerpt(std::string_view s, std::size_t n) {
  return s.size() <= n ? std::string(s) : std::string(s.substr(0, n)) + "...";
}

Script::Script(std::string_view text, std::filesystem::path file) : file_(std::move(file)) {
  text_.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    text_.push_back(text[i]);
  }
}

Text Text::at(std::string_view chars, Position where) {
  Text t;
  if (!chars.empty()) t.origins_.push_back({0, where});
  t.chars_.assign(chars);
  return t;
}

void Text::append(const Text& other, std::size_t begin, std::size_t end) {
  end = std::min(end, other.chars_.size());
  if (begin >= end) return;
  auto it = std::upper_bound(other.origins_.begin(), other.origins_.end(), begin,
                             [](std::size_t off, const Origin& o) { return off < o.offset; });
  --it;  // a non-empty text's first origin is at offset 0
  for (; it != other.origins_.end() && it->offset < end; ++it) {
    const std::size_t from = std::max(it->offset, begin);
    add_origin(chars_.size() + (from - begin),
               {it->at.line, it->at.column + static_cast<int>(from - it->offset)});
  }
  chars_.append(other.chars_, begin, end - begin);
}

Position Text::position_at(std::size_t offset) const {
  if (origins_.empty()) return {};
  auto it = std::upper_bound(origins_.begin(), origins_.end(), offset,
                             [](std::size_t off, const Origin& o) { return off < o.offset; });
  --it;
  return {it->at.line, it->at.column + static_cast<int>(offset - it->offset)};
}

void Text::add_origin(std::size_t offset, Position at) {
  if (!origins_.empty()) {
    const Origin& last = origins_.back();
    if (last.at.line == at.line &&
        last.at.column + static_cast<int>(offset - last.offset) == at.column)
      return;
  }
  origins_.push_back({offset, at});
}

}  // namespace trainsim::inputs::import::detail
