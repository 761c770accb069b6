#pragma once
// Every generated report: the reproductions of published results (from the registry
// `trainsim validate` runs, sweeps included) and the analyses, each run with fixed arguments.
// Adding an analysis's report is one entry here (its command file provides the content).

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "documents/report_content.hpp"

namespace trainsim::cli {

struct ReportSource {
  std::string name;  ///< `trainsim report NAME`, and the last part of its directory
  /// Where it is committed, relative to the project root: reproductions/NAME/ for a
  /// reproduction, reports/analyses/NAME/ for an analysis.
  std::filesystem::path directory;
  std::string title;  ///< the heading of a new README
  /// Computes the report from the project root (scenarios/ and hwprofiles/ below it).
  std::function<documents::ReportContent(const std::filesystem::path& root)> generate;
};

/// Every report, in a fixed order.
const std::vector<ReportSource>& report_sources();

}  // namespace trainsim::cli
