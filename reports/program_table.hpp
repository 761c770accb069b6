#pragma once
// What a recorded Program contains, counted per GPU (`trainsim exec --backend meta`).

#include <string>

#include "models/program.hpp"

namespace trainsim::reports {

/// One block per recorded GPU: op counts by kind, GEMM FLOPs, collective counts and bytes per
/// group kind and collective kind, allocations and the bytes still live at the end.
std::string format_program_stats(const program::Program& program);

}  // namespace trainsim::reports
