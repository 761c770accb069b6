#pragma once
// `trainsim isoefficiency SCENARIO [--target 0.8] [--max-gpus 512] [--axis hidden|batch]
// [--json FILE] [--plot FILE.svg]`: per tensor scheme and device count, the problem size at
// which E = T1/(p·Tp) reaches the target, and the fitted growth exponent beside the closed
// forms (sim/analysis/isoefficiency.hpp, reports/analyses/isoefficiency_report.hpp).

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "documents/report_content.hpp"

#include "cli/job.hpp"

namespace trainsim::cli {

void add_isoefficiency_command(CLI::App& app, Job& job);

/// The analysis run with the command's own `args` (paths relative to `root`) as a report:
/// reports/analyses/isoefficiency_report.hpp's content and a `command` block recording `args`.
documents::ReportContent isoefficiency_report(const std::filesystem::path& root,
                                              const std::vector<std::string>& args);

}  // namespace trainsim::cli
