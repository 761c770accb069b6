#include "sim/max_batch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>

#include "models/build_program.hpp"
#include "models/errors.hpp"
#include "sim/replay.hpp"
#include "sim/stuck_report.hpp"

namespace trainsim::sim {
namespace {

// Far beyond any GPU's memory for a transformer; stops the doubling on tiny models.
constexpr std::int64_t kMaxMicroBatch = std::int64_t{1} << 24;

BatchProbe probe(const Scenario& base, const hw::HardwareProfile& hardware,
                 std::int64_t micro_batch, std::int64_t micro_batches, const Progress& progress) {
  Scenario s = base;
  s.training.micro_batch = micro_batch;
  s.training.global_batch = micro_batch * s.parallel.data.size * micro_batches;
  BatchProbe p{micro_batch, Bytes::zero(), false};
  try {
    const program::Program program = build_program(s, ProgramScope::representative);
    ReplayOptions options;
    options.record_op_timings = false;
    options.record_memory_timeline = false;
    // Each probe's replay is its own phase, named by its micro batch.
    const std::string phase = fmt::format("mb {}", micro_batch);
    if (progress) {
      options.progress = [&](std::string_view, std::size_t done, std::size_t total) {
        progress(phase, done, total);
      };
    }
    const SimulationResult result = replay(program, hardware, options);
    // A deadlock is a schedule bug, not a batch that does not fit: say so.
    if (!result.stuck.empty()) {
      throw std::runtime_error(fmt::format("max-batch probe at micro batch {}: {}", micro_batch,
                                           describe_deadlock(program, result)));
    }
    for (const RankMemory& m : result.memory)
      p.peak = std::max(p.peak, m.peak);
    p.fits = p.peak <= hardware.gpu.memory;
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

MaxBatchResult find_max_batch(const Scenario& scenario, const hw::HardwareProfile& hardware,
                              const Progress& progress) {
  MaxBatchResult r;
  r.capacity = hardware.gpu.memory;
  r.micro_batches_per_replica =
      scenario.training.micro_batches_per_replica(scenario.parallel.data.size);
  r.micro_batch_step = micro_batch_step(scenario, r.micro_batches_per_replica);
  const std::int64_t step = r.micro_batch_step;
  // The search runs over multiples k of the step.
  auto try_batch = [&](std::int64_t k) {
    r.probes.push_back(probe(scenario, hardware, k * step, r.micro_batches_per_replica, progress));
    return r.probes.back();
  };

  // The peak grows almost linearly with the micro batch (activations), so the search first
  // aims where the line through the probes meets the capacity and checks one step beyond;
  // doubling and bisection finish the search if the line was off. Each probe at a large
  // micro batch is a full replay, so a few aimed probes save most of the time.
  BatchProbe best = try_batch(1);
  if (!best.fits) return r;
  std::int64_t low = 1;   // fits
  std::int64_t high = 0;  // does not fit (0: not found yet)
  Bytes high_peak;
  const auto record = [&](std::int64_t k, const BatchProbe& p) {
    if (p.fits) {
      low = k;
      best = p;
    } else {
      high = k;
      high_peak = p.peak;
    }
  };
  const BatchProbe first = best;
  record(2, try_batch(2));
  for (int round = 0; round < 3 && (high == 0 || high - low > 1); ++round) {
    // Slope per step: between the bracket's ends when both are known, else over the fits.
    const double slope =
        high != 0 ? (high_peak - best.peak).as_double() / static_cast<double>(high - low)
        : low > 1 ? (best.peak - first.peak).as_double() / static_cast<double>(low - 1)
                  : 0.0;
    if (!(slope > 0.0)) break;
    const double room = (r.capacity - best.peak).as_double() / slope;
    // Clamped before multiplying by the step, so that k * step cannot overflow.
    const double most = static_cast<double>(kMaxMicroBatch / step + 1 - low);
    std::int64_t k = low + static_cast<std::int64_t>(std::clamp(room, 0.0, most));
    k = std::max(k, low + 1);
    if (high != 0) k = std::min(k, high - 1);
    if (k * step > kMaxMicroBatch) break;
    const BatchProbe aimed = try_batch(k);
    record(k, aimed);
    if (aimed.fits && (high == 0 || k + 1 < high)) record(k + 1, try_batch(k + 1));
  }
  while (high == 0 && low * step < kMaxMicroBatch) {
    record(low * 2, try_batch(low * 2));
  }
  while (high - low > 1) {
    const std::int64_t mid = low + (high - low) / 2;
    record(mid, try_batch(mid));
  }
  r.micro_batch = low * step;
  r.global_batch = r.micro_batch * scenario.parallel.data.size * r.micro_batches_per_replica;
  r.peak = best.peak;
  return r;
}

}  // namespace trainsim::sim
