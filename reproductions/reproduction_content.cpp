#include "reproductions/reproduction_content.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "reproductions/claims/claim_map_report.hpp"

namespace trainsim::reproductions {
namespace {

std::string number(double v, const char* spec) {
  return std::isfinite(v) ? fmt::format(fmt::runtime(spec), v) : "-";
}

void add_comparisons(documents::ReportContent& content, const std::vector<Comparison>& rows,
                     const std::string& prefix) {
  documents::ReportTable table{
      prefix + "comparisons",
      {"figure", "published", "ours", "unit", "signed error", "tolerance", "verdict", "source"},
      {}};
  std::string after;
  for (const Comparison& c : rows) {
    table.add_row({c.figure, number(c.published, "{:.4g}"), number(c.predicted, "{:.4g}"), c.unit,
                   number(100.0 * c.signed_error(), "{:+.1f} %"),
                   number(100.0 * c.tolerance, "{:.0f} %"), c.verdict(), c.source});
    if (c.not_reproduced) {
      after += fmt::format("- Not reproduced, {}: {}. Evidence: {}.\n", c.figure,
                           c.not_reproduced->why, c.not_reproduced->evidence);
    }
  }
  content.add_table(std::move(table), after);
}

std::string claims_markdown(const std::vector<Claim>& claims) {
  std::string out;
  int index = 0;
  for (const Claim& c : claims) {
    out += fmt::format("{}. {}\n   - source: {}\n   - ours: {}\n   - verdict: {}\n", ++index,
                       c.statement, c.source, c.evidence, claim_verdict(c));
  }
  return out;
}

void add_sweep(documents::ReportContent& content, const Sweep& sweep, const std::string& prefix) {
  documents::ReportTable table{prefix + sweep.id, {sweep.x_label}, {}};
  for (const SweepSeries& s : sweep.series)
    table.columns.push_back(s.name);
  table.columns.push_back("note");
  for (std::size_t row = 0; row < sweep.xs.size(); ++row) {
    std::vector<std::string> cells{fmt::format("{:g}", sweep.xs[row])};
    for (const SweepSeries& s : sweep.series)
      cells.push_back(number(row < s.values.size() ? s.values[row] : NAN, "{:.3g}"));
    cells.push_back(row < sweep.row_notes.size() ? sweep.row_notes[row] : "");
    table.add_row(std::move(cells));
  }
  std::string after = sweep.title + ".\n";
  for (const SweepReference& r : sweep.references)
    after += fmt::format("Published {} (at the stated {} {:g}).\n", r.label, sweep.x_label, r.x);
  content.add_table(std::move(table), after);
  content.add_plot(prefix + sweep.id, sweep.plot());
}

}  // namespace

std::string reproduction_summary(const std::string& name, const ReproductionReport& report) {
  const int failed = count_failures(report.comparisons);
  const int unexpected = count_unexpected(report.claims);
  const auto claims_explained = std::count_if(report.claims.begin(), report.claims.end(),
                                              [](const Claim& c) { return c.explained(); });
  const auto not_reproduced =
      std::count_if(report.comparisons.begin(), report.comparisons.end(),
                    [](const Comparison& c) { return c.explained_failure(); });
  return fmt::format(
      "{}: {} comparisons, {} outside tolerance{}{}{}", name, report.comparisons.size(), failed,
      not_reproduced > 0 ? fmt::format(" (and {} not reproduced, explained)", not_reproduced) : "",
      report.claims.empty()
          ? ""
          : fmt::format("; {} claims, {} not as predicted{}", report.claims.size(), unexpected,
                        claims_explained > 0
                            ? fmt::format(" (and {} explained after the run)", claims_explained)
                            : ""),
      report.set_rows.empty()
          ? ""
          : fmt::format("; {} measured rows, judged by their sets", report.set_rows.size()));
}

void add_set_summary(documents::ReportContent& content, std::span<const SetResult> sets) {
  if (sets.empty()) return;
  content.add_block(
      "sets", set_summary_table("sets", sets).markdown() + "\n" + set_verdict_line(sets) + "\n");
}

int reproduction_failures(const ReproductionReport& report) {
  return count_failures(report.comparisons) + count_unexpected(report.claims);
}

void add_reproduction(documents::ReportContent& content, const std::string& name,
                      const ReproductionReport& report, const std::string& prefix) {
  if (!report.comparisons.empty()) add_comparisons(content, report.comparisons, prefix);
  if (!report.claims.empty()) content.add_block(prefix + "claims", claims_markdown(report.claims));
  if (!report.notes.empty()) content.add_block(prefix + "notes", documents::fenced(report.notes));
  for (documents::ReportTable table : report.tables) {
    table.id = prefix + table.id;
    content.add_table(std::move(table));
  }
  for (documents::ReportTable table : report.csv_tables) {
    table.id = prefix + table.id;
    content.add_csv(std::move(table));
  }
  for (const Sweep& sweep : report.sweeps)
    add_sweep(content, sweep, prefix);
  for (const claim_maps::ClaimMap& map : report.maps)
    claim_maps::add_claim_map(content, map);
  content.add_block(prefix + "summary", reproduction_summary(name, report) + "\n");
}

}  // namespace trainsim::reproductions
