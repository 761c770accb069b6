#include "reports/json_report.hpp"

#include <array>
#include <string>

#include "reports/summary_table.hpp"

namespace trainsim::reports {

nlohmann::ordered_json to_json(const Scenario& scenario, const Summary& s) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["scenario"] = s.scenario;
  j["hardware"] = s.hardware;
  j["gpus"] = s.gpus;
  j["plan"] = plan_description(scenario.parallel);
  j["mode"] = std::string(to_string(s.mode));
  j["iteration_time_s"] = s.iteration_time.seconds();
  j["tokens_per_s"] = s.tokens_per_s;
  // Achieved hardware FLOP/s per GPU (recomputation included), as Megatron-LM reports it.
  j["tflops_per_gpu"] = s.hardware_rate_per_gpu.tflops();
  j["model_tflops_per_gpu"] = s.model_rate_per_gpu.tflops();
  j["mfu"] = s.mfu;
  j["hfu"] = s.hfu;
  j["model_flops"] = s.model_flops.count();
  j["hardware_flops"] = s.hardware_flops.count();
  j["peak_tflops_per_gpu"] = s.peak_per_gpu.tflops();

  const sim::TimeBreakdown& b = s.breakdown;
  ordered_json breakdown;
  breakdown["compute"] = b.compute.seconds();
  breakdown["recompute"] = b.recompute.seconds();
  breakdown["optimizer"] = b.optimizer.seconds();
  for (int k = 0; k < program::kGroupKindCount; ++k) {
    const auto kind = static_cast<program::GroupKind>(k);
    if (kind == program::GroupKind::ep && !scenario.model.moe) continue;  // dense: unchanged
    breakdown["exposed_" + std::string(program::to_string(kind)) + "_comm"] =
        b.exposed_comm[static_cast<std::size_t>(k)].seconds();
  }
  breakdown["pipeline_bubble"] = b.bubble.seconds();
  breakdown["host_bound"] = b.host.seconds();
  breakdown["other"] = b.other.seconds();
  j["breakdown_s"] = breakdown;
  if (s.balanced_routing_time) {
    j["balanced_routing_time_s"] = s.balanced_routing_time->seconds();
    j["busiest_expert_load"] = s.busiest_expert_load.value_or(1.0);
  }
  if (s.stragglers) {
    const StragglerCost& c = *s.stragglers;
    ordered_json st;
    st["slow_gpus"] = c.slow_gpus;
    st["iteration_without_s"] = c.without.seconds();
    st["slowdown"] = c.slowdown;
    st["slowed_recorded_gpus"] = ordered_json::array();
    for (const SlowedGpu& g : c.slowed) {
      st["slowed_recorded_gpus"].push_back({{"gpu", g.gpu},
                                            {"factor", g.factor},
                                            {"stands_for", g.stands_for},
                                            {"slow_members", g.slow_members}});
    }
    if (c.waiting_gpu) st["waiting_gpu"] = *c.waiting_gpu;
    j["stragglers"] = st;
  }
  j["breakdown_gpu"] = s.critical_rank;

  const MemorySummary& m = s.memory;
  ordered_json memory;
  memory["peak_bytes"] = m.peak.count();
  memory["fits"] = m.fits;
  memory["capacity_bytes"] = m.capacity.count();
  memory["peak_gpu"] = m.peak_rank;
  memory["peak_at_s"] = m.peak_at.seconds();
  memory["peak_during"] = m.peak_during;
  ordered_json by_category;
  for (int c = 0; c < program::kMemoryCategoryCount; ++c) {
    const auto category = static_cast<program::MemoryCategory>(c);
    by_category[std::string(program::to_string(category))] =
        m.at_peak[static_cast<std::size_t>(c)].count();
  }
  memory["at_peak_bytes"] = by_category;
  j["memory"] = memory;

  j["ops_replayed"] = s.ops_replayed;
  j["every_rank_replayed"] = s.every_rank_replayed;
  return j;
}

}  // namespace trainsim::reports
