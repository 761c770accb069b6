#pragma once
// A report's files, from its content and its hand-written README: README.md with the marked
// blocks rewritten, one CSV per table, one SVG per plot. Rendered in memory, so that writing
// them and checking committed ones against them are the same computation.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "documents/report_content.hpp"

namespace trainsim::documents {

/// File name (in the report's directory) → contents.
using ReportFiles = std::map<std::string, std::string>;

/// The files of report `name`. `readme` is the committed README.md (its markers are filled;
/// empty for a new report, which gets a title and every block in order); `readme_file` names it
/// in errors. Plots run gnuplot.
ReportFiles render_report(const std::string& name, const std::string& title,
                          const ReportContent& content, const std::string& readme,
                          const std::string& readme_file);

/// Writes every file into `dir` (created if missing), each atomically.
void write_report_files(const ReportFiles& files, const std::filesystem::path& dir);

/// One file that differs from what the code regenerates.
struct ReportDifference {
  std::string file;
  std::string what;  ///< "missing", "not generated (stale)", "line 12: … / …"
};

/// Compares `files` with the committed directory `dir`: a generated file missing or different
/// (with the first differing line, committed then regenerated), and a committed .csv or .svg
/// that nothing generates.
std::vector<ReportDifference> compare_report_files(const ReportFiles& files,
                                                   const std::filesystem::path& dir);

}  // namespace trainsim::documents
