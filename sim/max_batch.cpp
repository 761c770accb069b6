#include "sim/max_batch.hpp"

#include <algorithm>

#include "models/build_program.hpp"
#include "models/errors.hpp"
#include "sim/replay.hpp"

namespace trainsim::sim {
namespace {

// Far beyond any GPU's memory for a transformer; stops the doubling on tiny models.
constexpr std::int64_t kMaxMicroBatch = std::int64_t{1} << 24;

BatchProbe probe(const Scenario& base, const hw::HardwareProfile& hardware,
                 std::int64_t micro_batch, std::int64_t micro_batches) {
  Scenario s = base;
  s.training.micro_batch = micro_batch;
  s.training.global_batch = micro_batch * s.parallel.data.size * micro_batches;
  BatchProbe p{micro_batch, Bytes::zero(), false};
  try {
    const program::Program program = build_program(s, ProgramScope::representative);
    ReplayOptions options;
    options.record_op_timings = false;
    options.record_memory_timeline = false;
    const SimulationResult result = replay(program, hardware, options);
    for (const RankMemory& m : result.memory)
      p.peak = std::max(p.peak, m.peak);
    p.fits = result.stuck.empty() && p.peak <= hardware.gpu.memory;
  } catch (const Infeasible&) {
    p.fits = false;
  }
  return p;
}

// The smallest micro batch the tensor scheme can split (2D: q, 2.5D: q·d; 1D: 1), found by
// asking the executor's own checks, so that every kind (3D too) is covered. Every requirement
// on the micro batch divides the block size, so it is found below it; 1 when the plan is
// rejected whatever the batch (the probes then report it Infeasible).
std::int64_t micro_batch_step(const Scenario& s, std::int64_t micro_batches) {
  for (std::int64_t b = 1; b <= s.parallel.tensor.size; ++b) {
    TrainingSpec t = s.training;
    t.micro_batch = b;
    t.global_batch = b * s.parallel.data.size * micro_batches;
    try {
      check_supported(s.model, s.parallel, t);
      return b;
    } catch (const Infeasible&) {
      continue;
    }
  }
  return 1;
}

}  // namespace

MaxBatchResult find_max_batch(const Scenario& scenario, const hw::HardwareProfile& hardware) {
  MaxBatchResult r;
  r.capacity = hardware.gpu.memory;
  r.micro_batches_per_replica =
      scenario.training.micro_batches_per_replica(scenario.parallel.data.size);
  r.micro_batch_step = micro_batch_step(scenario, r.micro_batches_per_replica);
  // The search runs over multiples b of the step.
  auto try_batch = [&](std::int64_t b) {
    r.probes.push_back(
        probe(scenario, hardware, b * r.micro_batch_step, r.micro_batches_per_replica));
    return r.probes.back();
  };

  BatchProbe best = try_batch(1);
  if (!best.fits) return r;
  std::int64_t low = 1;   // fits
  std::int64_t high = 0;  // does not fit (0: not found yet)
  while (high == 0 && low < kMaxMicroBatch) {
    const BatchProbe p = try_batch(low * 2);
    if (p.fits) {
      low *= 2;
      best = p;
    } else {
      high = low * 2;
    }
  }
  while (high - low > 1) {
    const std::int64_t mid = low + (high - low) / 2;
    const BatchProbe p = try_batch(mid);
    if (p.fits) {
      low = mid;
      best = p;
    } else {
      high = mid;
    }
  }
  r.micro_batch = low * r.micro_batch_step;
  r.global_batch = r.micro_batch * scenario.parallel.data.size * r.micro_batches_per_replica;
  r.peak = best.peak;
  return r;
}

}  // namespace trainsim::sim
