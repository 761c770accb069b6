#include "reports/straggler_cost.hpp"

#include <algorithm>
#include <map>

namespace trainsim::reports {

StragglerCost straggler_cost(const program::Program& program, const std::vector<double>& slowdowns,
                             const sim::SimulationResult& slow, const sim::SimulationResult& base,
                             program::Rank critical_gpu) {
  StragglerCost cost;
  cost.without = base.iteration_time;
  cost.slowdown = slow.iteration_time.seconds() / base.iteration_time.seconds();
  // Each world GPU's recorded stand-in (itself when every rank is recorded).
  auto stand_in = [&](std::size_t gpu) {
    return program.records_every_rank() ? gpu
                                        : static_cast<std::size_t>(program.representative[gpu]);
  };
  std::map<std::size_t, SlowedGpu> by_recorded;
  for (std::size_t g = 0; g < slowdowns.size(); ++g) {
    SlowedGpu& s = by_recorded[stand_in(g)];
    s.gpu = program.ranks[stand_in(g)].rank;
    ++s.stands_for;
    if (slowdowns[g] > 1.0) {
      ++cost.slow_gpus;
      if (cost.first_slow.size() < 8) cost.first_slow.push_back(static_cast<program::Rank>(g));
      ++s.slow_members;
      s.factor = std::max(s.factor, slowdowns[g]);
    }
  }
  for (const auto& [index, s] : by_recorded) {
    if (s.slow_members > 0) cost.slowed.push_back(s);
  }
  cost.critical_gpu = critical_gpu;
  auto idle = [](const sim::TimeBreakdown& b) {
    Time sum = b.bubble + b.host + b.other;
    for (const Time t : b.exposed_comm)
      sum += t;
    return sum;
  };
  Time most = Time::zero();
  for (std::size_t r = 0; r < program.ranks.size(); ++r) {
    const program::Rank gpu = program.ranks[r].rank;
    const bool stretched = std::any_of(cost.slowed.begin(), cost.slowed.end(),
                                       [&](const SlowedGpu& s) { return s.gpu == gpu; });
    if (stretched) continue;
    const Time gained = idle(slow.breakdown[r]) - idle(base.breakdown[r]);
    if (gained > most) {
      most = gained;
      cost.waiting_gpu = gpu;
      cost.waiting_with = slow.breakdown[r];
      cost.waiting_without = base.breakdown[r];
    }
  }
  for (std::size_t r = 0; r < program.ranks.size(); ++r) {
    if (program.ranks[r].rank != critical_gpu) continue;
    cost.with = slow.breakdown[r];
    cost.without_breakdown = base.breakdown[r];
  }
  return cost;
}

}  // namespace trainsim::reports
