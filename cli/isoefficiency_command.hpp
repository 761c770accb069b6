#pragma once
// `trainsim isoefficiency SCENARIO [--target 0.8] [--max-gpus 512] [--axis hidden|batch]
// [--json FILE] [--plot FILE.svg]`: per tensor scheme and device count, the problem size at
// which E = T1/(p·Tp) reaches the target, and the fitted growth exponent beside the closed
// forms (sim/analysis/isoefficiency.hpp, reports/isoefficiency_report.hpp).

#include <CLI/CLI.hpp>

namespace trainsim::cli {

void add_isoefficiency_command(CLI::App& app);

}  // namespace trainsim::cli
