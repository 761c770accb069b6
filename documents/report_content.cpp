#include "documents/report_content.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace trainsim::documents {

void ReportContent::add_block(const std::string& name, std::string markdown) {
  if (name.empty() || name.find_first_of(" :\n") != std::string::npos) {
    throw std::invalid_argument(
        fmt::format("block name '{}': non-empty, without spaces or ':'", name));
  }
  if (!markdown.empty() && markdown.back() != '\n') markdown += '\n';
  if (!blocks.emplace(name, std::move(markdown)).second) {
    throw std::invalid_argument(fmt::format("block '{}' added twice", name));
  }
  block_order.push_back(name);
}

void ReportContent::add_table(ReportTable table, const std::string& after) {
  add_block(table.id, table.markdown() + (after.empty() ? "" : "\n" + after));
  tables.push_back(std::move(table));
}

void ReportContent::add_csv(ReportTable table) {
  const bool taken = blocks.count(table.id) > 0 ||
                     std::any_of(tables.begin(), tables.end(),
                                 [&](const ReportTable& t) { return t.id == table.id; });
  if (taken) throw std::invalid_argument(fmt::format("table '{}' added twice", table.id));
  tables.push_back(std::move(table));
}

namespace {
void add_any_plot(std::vector<ReportPlot>& plots, std::string id,
                  std::variant<PlotSpec, HeatmapSpec> spec) {
  if (std::any_of(plots.begin(), plots.end(), [&](const ReportPlot& p) { return p.id == id; })) {
    throw std::invalid_argument(fmt::format("plot '{}' added twice", id));
  }
  plots.push_back({std::move(id), std::move(spec)});
}
}  // namespace

void ReportContent::add_plot(std::string id, PlotSpec spec) {
  add_any_plot(plots, std::move(id), std::move(spec));
}

void ReportContent::add_plot(std::string id, HeatmapSpec spec) {
  add_any_plot(plots, std::move(id), std::move(spec));
}

std::string fenced(const std::string& text, const std::string& language) {
  std::string body = text;
  if (!body.empty() && body.back() != '\n') body += '\n';
  return fmt::format("```{}\n{}```\n", language, body);
}

}  // namespace trainsim::documents
