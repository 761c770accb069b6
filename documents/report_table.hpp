#pragma once
// A table of a generated report, in the two forms a report ships: a Markdown table for its
// README and a CSV file beside it (RFC 4180 quoting, "\n" line ends), so every number a
// README shows can also be read by a program.

#include <string>
#include <string_view>
#include <vector>

namespace trainsim::documents {

struct ReportTable {
  std::string id;  ///< block name in the README and the CSV's file stem ("comparisons")
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;

  /// Appends a row; throws std::invalid_argument unless it has one cell per column.
  void add_row(std::vector<std::string> cells);
  /// | a | b |, a |---| rule, one line per row; '|' in a cell escaped, line breaks as spaces.
  std::string markdown() const;
  /// The header and rows as CSV.
  std::string csv() const;
};

/// One CSV field: quoted (with quotes doubled) when it holds a comma, a quote, a line break
/// or leading or trailing spaces; as it is otherwise.
std::string csv_field(std::string_view text);

}  // namespace trainsim::documents
