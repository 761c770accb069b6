#include "reports/summary.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace trainsim::reports {
namespace {

// Every world rank executes what its representative recorded (the replay summed each
// recorded rank's tensor-core work as it indexed the Program).
Flops world_tensor_core_flops(const program::Program& program,
                              const sim::SimulationResult& result) {
  if (result.tensor_core_flops.size() != program.ranks.size()) {
    throw std::invalid_argument(fmt::format(
        "summary: the result has the tensor-core FLOPs of {} recorded ranks, the Program {} "
        "(a result of another Program?)",
        result.tensor_core_flops.size(), program.ranks.size()));
  }
  Flops total = Flops::zero();
  for (std::int32_t index : program.representative) {
    total += result.tensor_core_flops[static_cast<std::size_t>(index)];
  }
  return total;
}

MemorySummary memory_summary(const hw::HardwareProfile& hardware, const program::Program& program,
                             const sim::SimulationResult& result) {
  MemorySummary m;
  m.capacity = hardware.gpu.memory;
  for (const sim::RankMemory& r : result.memory) {
    if (r.peak > m.peak || (r.peak == m.peak && r.rank < m.peak_rank)) {
      m.peak = r.peak;
      m.peak_rank = r.rank;
      m.peak_at = r.peak_at;
      m.at_peak = r.at_peak;
      m.peak_during.clear();
      const auto recorded =
          std::find_if(program.ranks.begin(), program.ranks.end(),
                       [&r](const program::RankProgram& p) { return p.rank == r.rank; });
      if (r.peak_op >= 0 && recorded != program.ranks.end()) {
        const program::Op& op = recorded->ops[static_cast<std::size_t>(r.peak_op)];
        m.peak_during = fmt::format("{}, micro batch {}: {}", program::to_string(op.tag.phase),
                                    op.tag.micro_batch, program::op_label(program, op));
      }
    }
  }
  if (result.memory.empty() && !program.ranks.empty()) m.peak_rank = program.ranks.front().rank;
  m.fits = m.peak <= m.capacity;
  return m;
}

// The first rank holding the latest end.
std::size_t critical_index(const sim::SimulationResult& result) {
  std::size_t best = 0;
  Time latest = Time::zero();
  for (std::size_t i = 0; i < result.timelines.size(); ++i) {
    if (result.timelines[i].finished > latest) {
      latest = result.timelines[i].finished;
      best = i;
    }
  }
  return best;
}

}  // namespace

Summary summarize(const Scenario& scenario, const hw::HardwareProfile& hardware,
                  const program::Program& program, const sim::SimulationResult& result) {
  Summary s;
  s.scenario = scenario.name;
  s.hardware = hardware.name;
  s.gpus = scenario.gpus;
  s.tokens_per_iteration = scenario.training.global_batch * scenario.model.seq_len;
  s.iteration_time = result.iteration_time;
  s.mode = scenario.training.mode;
  s.model_flops = scenario.training.inference()
                      ? scenario.model.forward_flops(scenario.training.global_batch)
                      : scenario.model.model_flops(scenario.training.global_batch);
  s.hardware_flops = world_tensor_core_flops(program, result);
  s.peak_per_gpu = hardware.peak(scenario.model.dtype);
  s.ops_replayed = program.op_count();
  s.every_rank_replayed = program.records_every_rank();

  const double seconds = s.iteration_time.seconds();
  const double gpus = static_cast<double>(s.gpus);
  if (seconds > 0.0) {
    s.tokens_per_s = static_cast<double>(s.tokens_per_iteration) / seconds;
    s.model_rate_per_gpu = FlopRate::flops_per_second(s.model_flops.count() / seconds / gpus);
    s.hardware_rate_per_gpu = FlopRate::flops_per_second(s.hardware_flops.count() / seconds / gpus);
    s.mfu = s.model_rate_per_gpu / s.peak_per_gpu;
    s.hfu = s.hardware_rate_per_gpu / s.peak_per_gpu;
  }

  const std::size_t critical = critical_index(result);
  if (critical < result.breakdown.size()) {
    s.breakdown = result.breakdown[critical];
    s.critical_rank = result.timelines[critical].rank;
  }
  s.memory = memory_summary(hardware, program, result);
  return s;
}

}  // namespace trainsim::reports
