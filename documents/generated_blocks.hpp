#pragma once
// The marked blocks of a hand-written report README. The prose stays hand-written; the numbers
// never are: a block
//
//   <!-- trainsim:generated REPORT:BLOCK -->
//   … rewritten by `trainsim report REPORT` …
//   <!-- trainsim:end -->
//
// is replaced by what the code produces for BLOCK; every byte outside the blocks (the marker
// lines included) is kept as it is.

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace trainsim::documents {

/// A README split at its markers: literal text, and the blocks between the markers.
struct MarkedText {
  struct Segment {
    bool generated = false;
    std::string text;  ///< literal: the bytes (marker lines included); generated: the block name
    int line = 0;      ///< 1-based line of the begin marker (generated segments)
  };
  std::vector<Segment> segments;
};

/// Splits `text` (the contents of `file`, named in errors) at its markers. Throws
/// std::invalid_argument naming file:line for a marker of another report than `report`, a
/// malformed marker, a begin inside a block, an end outside one or a block left unterminated.
MarkedText parse_marked_text(std::string_view text, const std::string& file,
                             const std::string& report);

/// The text with every block replaced by "\n" + blocks[name] + "\n" (a block's text ends with a
/// newline). Throws std::invalid_argument naming file:line and the known blocks for a block
/// name `blocks` does not have.
std::string fill_marked_text(const MarkedText& marked,
                             const std::map<std::string, std::string>& blocks,
                             const std::string& file);

/// The begin and end marker lines of a block (no newline).
std::string begin_marker(const std::string& report, const std::string& block);
std::string end_marker();

}  // namespace trainsim::documents
