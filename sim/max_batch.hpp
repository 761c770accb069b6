#pragma once
// The largest batch a scenario's plan can run without running out of GPU memory: a search
// over the micro batch, each probe a full build-and-replay whose simulated peak decides.

#include <cstdint>
#include <vector>

#include "models/scenario.hpp"
#include "sim/hardware_profile.hpp"
#include "sim/progress.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

struct BatchProbe {
  std::int64_t micro_batch = 0;
  Bytes peak;  ///< simulated peak over all GPUs (zero if the Program could not be built)
  bool fits = false;
};

struct MaxBatchResult {
  std::int64_t micro_batch = 0;   ///< largest micro batch that fits (0: not even 1 fits)
  std::int64_t global_batch = 0;  ///< micro_batch × data parallel × micro batches per replica
  std::int64_t micro_batches_per_replica = 0;  ///< kept from the scenario
  /// Micro batches tried are multiples of this: what the tensor grid splits (2D q, 2.5D q·d).
  std::int64_t micro_batch_step = 1;
  Bytes peak;                      ///< at the largest fitting micro batch
  Bytes capacity;                  ///< HBM of one GPU
  std::vector<BatchProbe> probes;  ///< in the order they were tried
};

/// Searches the micro batch in multiples of the grid's step: aims where the line through the
/// probes' peaks meets the capacity (the peak is nearly linear in the micro batch) and checks
/// one step beyond, then doubles and bisects if the line was off. The number of micro batches
/// per data-parallel replica and the scenario's mode stay (inference needs only the weights
/// and the live forward activations, so it fits more), so the global batch grows with the
/// micro batch. A micro batch too large to build (Infeasible) counts as not fitting.
/// `progress` hears each probe's replay as a phase "mb K" (may be empty).
MaxBatchResult find_max_batch(const Scenario& scenario, const hw::HardwareProfile& hardware,
                              const Progress& progress = {});

}  // namespace trainsim::sim
