#include "documents/report_table.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

namespace trainsim::documents {
namespace {

std::string markdown_cell(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string markdown_row(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const std::string& c : cells) {
    out += ' ';
    out += markdown_cell(c);
    out += " |";
  }
  return out + "\n";
}

std::string csv_row(const std::vector<std::string>& cells) {
  std::string out;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) out += ',';
    out += csv_field(cells[i]);
  }
  return out + "\n";
}

}  // namespace

void ReportTable::add_row(std::vector<std::string> cells) {
  if (cells.size() != columns.size()) {
    throw std::invalid_argument(fmt::format("table '{}': a row of {} cells for {} columns", id,
                                            cells.size(), columns.size()));
  }
  rows.push_back(std::move(cells));
}

std::string ReportTable::markdown() const {
  std::string out = markdown_row(columns) + "|";
  for (std::size_t i = 0; i < columns.size(); ++i)
    out += "---|";
  out += "\n";
  for (const std::vector<std::string>& row : rows)
    out += markdown_row(row);
  return out;
}

std::string ReportTable::csv() const {
  std::string out = csv_row(columns);
  for (const std::vector<std::string>& row : rows)
    out += csv_row(row);
  return out;
}

std::string csv_field(std::string_view text) {
  const bool quote = text.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!quote) return std::string(text);
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace trainsim::documents
