#include "models/stragglers.hpp"

#include <random>

namespace trainsim {

std::vector<double> kernel_slowdowns(const StragglerSpec& spec, std::int64_t gpus) {
  if (!spec.any() || gpus < 1) return {};
  std::vector<double> factors(static_cast<std::size_t>(gpus), 1.0);
  if (spec.fraction > 0.0) {
    std::mt19937_64 engine(spec.seed);
    for (double& f : factors) {
      const double u = static_cast<double>(engine() >> 11) * 0x1.0p-53;
      if (u < spec.fraction) f = spec.factor;
    }
  }
  if (spec.rank && *spec.rank >= 0 && *spec.rank < gpus)
    factors[static_cast<std::size_t>(*spec.rank)] = spec.factor;
  return factors;
}

}  // namespace trainsim
