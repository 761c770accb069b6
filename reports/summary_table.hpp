#pragma once
// The readable summary `trainsim simulate` prints.

#include <string>

#include "models/scenario.hpp"
#include "reports/summary.hpp"
#include "sim/hardware_profile.hpp"

namespace trainsim::reports {

/// Multi-line text: setup, headline figures, time breakdown and peak memory with verdict.
std::string format_summary(const Scenario& scenario, const hw::HardwareProfile& hardware,
                           const Summary& summary);

/// Text forms of the plan's enums as they are written in scenario files.
std::string plan_description(const ParallelPlan& plan);

}  // namespace trainsim::reports
