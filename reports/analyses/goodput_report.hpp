#pragma once
// `trainsim goodput`: a scenario's run under the profile's interruptions — checkpoint size and
// cost, the interval, the effective share of wall time and the distribution of days to train
// (sim/analysis/run_goodput.hpp, goodput.hpp) — as text and JSON.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/analysis/goodput.hpp"
#include "sim/analysis/run_goodput.hpp"
#include "sim/analysis/training_goodput.hpp"

namespace trainsim::reports {

struct GoodputAnalysis {
  std::string scenario;
  std::string hardware;
  std::int64_t tokens_per_step = 0;
  double steps = 0.0;  ///< the run's length
  sim::RunGoodput run;
  sim::WallTimeShares shares;    ///< of a long run's wall time
  double work_s = 0.0;           ///< steps × iteration: the failure-free time
  double expected_wall_s = 0.0;  ///< closed form
  std::int64_t samples = 0;
  std::int64_t seed = 0;
  sim::MonteCarloRuns monte_carlo;
};

/// The run of `steps` steps with the interval of `goodput`, its closed form and its Monte
/// Carlo (`samples` runs from `seed`).
GoodputAnalysis analyze_goodput(std::string scenario, std::string hardware,
                                std::int64_t tokens_per_step, double steps,
                                const sim::RunGoodput& goodput, std::int64_t samples,
                                std::uint64_t seed);

std::string goodput_text(const GoodputAnalysis& a);
/// The Monte Carlo's runs are summarised (mean, p10, p50, p90), not listed.
nlohmann::ordered_json goodput_json(const GoodputAnalysis& a);

}  // namespace trainsim::reports
