#pragma once
// Synthetic raw measurements for the fit tests: every row timed by the simulator's own cost
// models on a known "true" profile, times multiplied by 1 + noise x u with u in [-1, 1] from a
// fixed-seed generator (deterministic on every platform).

#include <string>

#include "sim/hardware_profile.hpp"

namespace trainsim::calibrate::testing {

/// The CSV text (calibrate/README.md schema) of a sweep like the microbenchmarks': launch,
/// copy and element-wise rows, bf16 GEMMs over shapes that tell the candidate tiles apart and
/// some tf32 ones, all-reduce / all-gather / reduce-scatter over 2, 4 and 8 GPUs of a node
/// and all-reduce across 2 and 4 nodes from 8 B to 4 GiB, send_recv inside a node and across
/// two, and ten GEMMs beside a collective; plus one unverified row whose time is wrong, which
/// the fit must ignore.
std::string synthetic_raw_csv(const hw::HardwareProfile& truth, double noise);

/// The profile the synthetic rows are drawn from: `base` with every fitted figure moved away
/// from its base value (so that a fit that changed nothing would fail), tf32 GEMMs at their
/// own max_efficiency, groups of 8 at their own curve and send_recv at its own α and curves.
hw::HardwareProfile synthetic_truth(const hw::HardwareProfile& base);

}  // namespace trainsim::calibrate::testing
