#pragma once
// Lamy-Poirier 2021's "halves the shortest training time", as issue 7's search measures it:
// the sides compared (the paper's method; Megatron-LM as of 2021 and each later feature added
// in turn), each a sub-space of the layout search, and the searches, each run once. Used by the
// reproduction (reproductions/lamy_poirier2021.cpp) and its claim map
// (reproductions/claims/lamy_poirier2021_maps.cpp). Why each side holds what it holds, and the
// prediction written before the first run: lamy_shortest_time.cpp.

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/model_spec.hpp"
#include "models/parallel_plan.hpp"
#include "sim/analysis/training_time.hpp"
#include "sim/hardware_profile.hpp"

namespace trainsim::reproductions::lamy {

inline constexpr double kShortestTimeTokens = 300e9;
inline constexpr std::int64_t kShortestTimeMaxGpus = 12288;
inline constexpr std::int64_t kShortestTimeTensor = 8;

/// One side of the shortest-time comparison, or one rung of the ladder: the layouts the search
/// keeps (on top of TP 8, 1D, micro batch 1), searched once per DP-overlap setting (a space-wide
/// option of the search), the faster kept.
struct Side {
  const char* name;
  std::vector<PipelineSchedule> schedules;
  std::vector<int> zeros;
  std::vector<Recompute> recomputes;
  std::vector<bool> sequence_parallel;
  std::vector<bool> overlaps;  ///< overlap_grad_reduce settings
};

/// The paper's method: layered + modular with ZeRO 3 and layer-input checkpoints.
const Side& paper_method();
/// The compared baseline: Megatron-LM 2021's 1F1B (Narayanan's 1T schedule).
const Side& megatron_1f1b();
/// Megatron-LM 2021 with both its schedules, then each later feature made available in turn.
const std::array<Side, 4>& ladder();
/// The rung of ladder() that adds the distributed optimizer (ZeRO 1).
inline constexpr std::size_t kDistributedOptimizerRung = 2;

/// The layout of a point, and whether its DP reduction overlaps the backward.
std::string layout_text(const sim::TrainingPoint& p);
/// "12288 GPUs, batch 1536, <layout>: 13.73 s × 95367 steps = 15.2 days".
std::string point_text(const sim::TrainingPoint& p);

/// The shortest-time searches of one model, machine and reference batch, each run once: a
/// rung's search with one overlap setting is the search of the rung before it when their
/// spaces are the same. Not thread-safe (one owner; the search itself runs layouts in
/// parallel).
class Searches {
 public:
  /// What a search spans besides the layout.
  enum class Span {
    /// The batch at B_crit/2, B_crit and 2·B_crit and 6144 or 12288 GPUs (the reproduction's).
    batches_and_gpus,
    /// B_crit on 12288 GPUs only, where every side's best lies at the profile's network: six
    /// times cheaper (the claim map's many setups).
    critical_batch_on_every_gpu,
  };

  Searches(ModelSpec model, hw::HardwareProfile hardware, std::int64_t reference_batch,
           Span span = Span::batches_and_gpus)
      : model_(std::move(model)),
        hardware_(std::move(hardware)),
        reference_batch_(reference_batch),
        span_(span) {}

  /// The best point of `side` over its overlap settings.
  sim::TrainingPoint best(const Side& side);

 private:
  sim::TrainingPoint search(const Side& side, bool overlap);

  ModelSpec model_;
  hw::HardwareProfile hardware_;
  std::int64_t reference_batch_;
  Span span_;
  std::map<std::string, sim::TrainingPoint> done_;
};

}  // namespace trainsim::reproductions::lamy
