#pragma once
// The figures a person reads after a simulation: iteration time, throughput, FLOP rates,
// MFU/HFU, where the time went and peak memory. Computed from the Program and its replay;
// formatting lives in summary_table / json_report.

#include <optional>
#include <string>

#include "models/program.hpp"
#include "models/scenario.hpp"
#include "reports/straggler_cost.hpp"
#include "sim/hardware_profile.hpp"
#include "sim/simulation_result.hpp"
#include "units/units.hpp"

namespace trainsim::reports {

struct MemorySummary {
  Bytes peak;                   ///< largest peak over all GPUs
  program::Rank peak_rank = 0;  ///< a GPU that reaches it
  Time peak_at;
  sim::MemoryByCategory at_peak{};
  /// What was being allocated when the peak was reached: "backward, micro batch 0: L47
  /// attn.qkv.dgrad"; empty when nothing was allocated.
  std::string peak_during;
  Bytes capacity;     ///< HBM of one GPU
  bool fits = false;  ///< peak <= capacity
};

struct Summary {
  std::string scenario;
  std::string hardware;
  std::int64_t gpus = 0;
  RunMode mode = RunMode::training;  ///< inference: an iteration is one step of forward passes
  std::int64_t tokens_per_iteration = 0;
  Time iteration_time;
  double tokens_per_s = 0.0;
  /// FLOPs the model needs per iteration (3 × forward; inference: forward only; the
  /// numerator of MFU).
  Flops model_flops;
  /// GEMM FLOPs the Program actually executes per iteration, over all GPUs (incl. recompute).
  Flops hardware_flops;
  FlopRate peak_per_gpu;
  /// Achieved hardware FLOP rate per GPU (what Megatron-LM reports as TFLOP/s per GPU).
  FlopRate hardware_rate_per_gpu;
  FlopRate model_rate_per_gpu;
  double mfu = 0.0;
  double hfu = 0.0;
  program::Rank critical_rank = 0;  ///< the GPU whose last op ends last
  sim::TimeBreakdown breakdown;     ///< of the critical rank
  MemorySummary memory;
  std::size_t ops_replayed = 0;
  bool every_rank_replayed = false;
  /// MoE routing other than balanced (simulate): the busiest expert-parallel rank's rows over
  /// the mean rank's, averaged over the MoE layers, and the iteration time with balanced
  /// routing, whose difference is the imbalance's cost.
  std::optional<double> busiest_expert_load;
  std::optional<Time> balanced_routing_time;
  /// The scenario's stragglers (simulate): their cost against the run without them.
  std::optional<StragglerCost> stragglers;
};

/// Reduces a replay of `program` to its summary (`result` must be that replay: its per-rank
/// tensor-core FLOPs and last ends are read, not recomputed from the Program). Hardware FLOPs
/// count each world rank through its representative, so representative and every-rank
/// replays give the same figure. Throws std::invalid_argument when the result holds FLOPs for
/// another number of recorded ranks than the Program has.
Summary summarize(const Scenario& scenario, const hw::HardwareProfile& hardware,
                  const program::Program& program, const sim::SimulationResult& result);

}  // namespace trainsim::reports
