#include "reports/summary.hpp"

#include <algorithm>
#include <variant>

#include <fmt/format.h>

#include "models/parallel_for.hpp"

namespace trainsim::reports {
namespace {

// The tensor-core work a rank executes: its GEMMs and its fused attention kernels (whose
// FLOPs are the products they run: causal tiles skipped, the backward's recomputed scores
// included).
Flops gemm_flops(const program::RankProgram& rank) {
  Flops total = Flops::zero();
  for (const program::Op& op : rank.ops) {
    if (const auto* g = std::get_if<program::Gemm>(&op.payload)) {
      total += g->flops();
    } else if (const auto* k = std::get_if<program::Kernel>(&op.payload);
               k != nullptr && !program::memory_bound(op.kernel_class)) {
      total += k->flops;
    }
  }
  return total;
}

// Every world rank executes what its representative recorded. The recorded ranks are summed
// on all cores: the pass reads every op of the Program (680 MB on the 3072-GPU row).
Flops program_gemm_flops(const program::Program& program) {
  std::vector<Flops> per_recorded(program.ranks.size(), Flops::zero());
  for_each_in_parallel(program.ranks.size(),
                       [&](std::size_t r) { per_recorded[r] = gemm_flops(program.ranks[r]); });
  Flops total = Flops::zero();
  for (std::int32_t index : program.representative) {
    total += per_recorded[static_cast<std::size_t>(index)];
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

// The first rank holding the latest end. Each rank's latest is found on all cores (the
// timings are 16 bytes per op), then compared in rank order.
std::size_t critical_index(const sim::SimulationResult& result) {
  std::vector<Time> latest_of(result.timelines.size(), Time::zero());
  for_each_in_parallel(result.timelines.size(), [&](std::size_t i) {
    for (const sim::OpTiming& t : result.timelines[i].ops) {
      // Time::max(): never ran (a host sync passed over without a host model).
      if (t.end != Time::max()) latest_of[i] = std::max(latest_of[i], t.end);
    }
  });
  std::size_t best = 0;
  Time latest = Time::zero();
  for (std::size_t i = 0; i < latest_of.size(); ++i) {
    if (latest_of[i] > latest) {
      latest = latest_of[i];
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
  s.hardware_flops = program_gemm_flops(program);
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
