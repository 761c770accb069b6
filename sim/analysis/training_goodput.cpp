#include "sim/analysis/training_goodput.hpp"

namespace trainsim::sim {
namespace {

// Steele, Lea and Flood's splitmix64 finaliser: every input bit reaches every output bit, so
// seeds that differ in one grid coordinate give unrelated streams.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31U);
}

}  // namespace

std::uint64_t point_seed(std::uint64_t base, std::int64_t batch, std::int64_t gpus) {
  return mix(mix(mix(base) ^ static_cast<std::uint64_t>(batch)) ^ static_cast<std::uint64_t>(gpus));
}

PointGoodput point_goodput(const ModelSpec& model, std::int64_t batch, std::int64_t gpus,
                           std::int64_t gpus_per_node, Time iteration, double steps,
                           const hw::ReliabilitySpec& reliability, const FailureOptions& options) {
  return run_outcome(run_goodput(model, gpus, gpus_per_node, iteration, reliability), steps,
                     options.samples, point_seed(options.seed, batch, gpus));
}

PointGoodput run_outcome(const RunGoodput& run, double steps, std::int64_t samples,
                         std::uint64_t seed) {
  PointGoodput p;
  p.run = run;
  p.work_s = steps * run.iteration.seconds();
  p.expected_wall_s = expected_wall_time(p.work_s, run.interval_s, run.failures);
  p.seed = seed;
  p.monte_carlo = monte_carlo_runs(p.work_s, run.interval_s, run.failures, samples, seed);
  p.monte_carlo.wall_s.clear();  // summarised; a grid of points would hold every run otherwise
  p.monte_carlo.wall_s.shrink_to_fit();
  p.gpu_hours = static_cast<double>(run.gpus) * p.expected_wall_s / 3600.0;
  return p;
}

}  // namespace trainsim::sim
