#pragma once
// A reproduction's results as report content (documents/report_content.hpp): the comparison
// table, the claims, the notes and the sweeps (tables and plots), as blocks of its README.

#include <span>
#include <string>

#include "documents/report_content.hpp"
#include "reproductions/comparison_set.hpp"
#include "reproductions/reproduction.hpp"

namespace trainsim::reproductions {

/// Adds, each block name prefixed by `prefix`: `comparisons` (table: figure, published, ours,
/// unit, signed error, tolerance, verdict, source; then each row not reproduced with its reason and
/// evidence), `claims` (a numbered list), `notes` (fenced text), its tables, its CSV-only tables
/// (files without a block), one table and plot per sweep (named by its id) and `summary` (the
/// verdict line `trainsim validate` prints). Empty parts add no block.
void add_reproduction(documents::ReportContent& content, const std::string& name,
                      const ReproductionReport& report, const std::string& prefix = {});

/// Adds block `sets`: the set summary of a report's reproductions (set_summary_table, then
/// the verdict line); nothing when they have no sets (predictions only).
void add_set_summary(documents::ReportContent& content, std::span<const SetResult> sets);

/// "NAME: 12 comparisons, 0 outside tolerance (and 1 not reproduced, explained); 4 claims, …"; with
/// set rows, "; 1440 measured rows, judged by their sets".
std::string reproduction_summary(const std::string& name, const ReproductionReport& report);

/// Comparisons outside their tolerance plus claims not as predicted, neither explained.
int reproduction_failures(const ReproductionReport& report);

}  // namespace trainsim::reproductions
