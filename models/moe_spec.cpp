#include "models/moe_spec.hpp"

#include <cmath>

namespace trainsim {

std::optional<std::int64_t> MoeSpec::capacity(std::int64_t tokens) const {
  if (!capacity_factor) return std::nullopt;
  // Megatron's get_capacity: ceil(num_tokens · topk / num_experts · capacity_factor).
  // Beyond every routed row an expert could get, the cap drops nothing (and a huge factor
  // would overflow the count).
  const double routed = static_cast<double>(tokens * top_k);
  const double cap = std::ceil(routed / static_cast<double>(experts) * *capacity_factor);
  return cap >= routed ? tokens * top_k : static_cast<std::int64_t>(cap);
}

}  // namespace trainsim
