#pragma once
// `trainsim plan`'s search: every valid layout of a model on N GPUs at a global batch
// (layout_space), the ones that cannot fit pruned, the rest ranked by the cheap estimate
// (layout_estimate), the best K replayed in full and ranked by their replays. Public so that
// a later search over batch size and GPU count (training time) can call it per point.
//
// Bound: every layout gets floors on its time, each taken only where the ones before leave it
// at the front of the order: one GPU's kernels summed (KernelFloor, no replay, for every
// survivor), then for a batch at the front the tensor block's link traffic (TrafficFloor of
// compute_layout, tallied, not replayed), the compute floor (ReducedFit::compute_floor, from
// replays of the tensor block alone) and the reduced layout's busiest link (TrafficFloor). A
// batch whose layouts have all four floors is estimated in full, in order of the floor, in
// batches of a fixed size; the search stops when 4·K layouts are estimated and the 4·K-th best
// estimate is at most the next floor, since no layout left could enter the 4·K best
// (`bounded_out` counts those never estimated; `exhaustive` turns this off). An estimate is
// never below its layout's floor, so which floors were taken changes the counts, not the best.
//
// Pruning is in two steps: a closed-form floor on the model state (never above what the
// replay allocates, so never drops a layout that fits), then the kernel floor's peak (rank 0's
// allocations in issue order), the compute floor's and the estimated peak above
// capacity·(1 + memory_margin) (the margin absorbs the estimate's error; tests check on a
// small space that no dropped layout fits in its full replay). The full replays check the
// survivors' memory: the layouts estimated to fit are replayed first (in estimated order),
// then those in the margin; a replayed layout over capacity is set aside (`rejected`) and the
// next one replayed, until K fit or 3·K have been replayed; then, within the 3·K, those estimated
// faster than the K-th replayed time (an estimate is a bilinear extrapolation from one or two
// layers and micro batches, at least the layout's floor, and can be optimistic
// where communication overlaps differently at full scale), keeping the K fastest replays.
//
// Deterministic: the reduced replays and full replays run on `threads` threads, each into
// its own slot, merged in enumeration order; ties in time are broken by enumeration order.
// Workers a round of full replays leaves idle replay ahead (the next layouts of the replay
// order), kept for the rounds that ask for them: the threads change the time, not which layouts
// the result holds. SearchOptions::reference is replayed in the first round.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "models/model_spec.hpp"
#include "models/process_group.hpp"
#include "sim/analysis/fit_memo.hpp"
#include "sim/analysis/layout_estimate.hpp"
#include "sim/analysis/layout_space.hpp"
#include "sim/hardware_profile.hpp"
#include "sim/progress.hpp"
#include "sim/simulation_result.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

/// Called as the search advances: phase ("estimate", "replay"), items done, items in all.
using SearchProgress = Progress;

struct SearchOptions {
  LayoutSpaceOptions space;
  std::size_t top = 3;          ///< K: layouts replayed in full and returned
  unsigned threads = 0;         ///< 0: one per core
  double memory_margin = 0.15;  ///< estimated peak allowed above capacity before pruning
  bool exhaustive = false;      ///< estimate every survivor (no bound)
  SearchProgress progress;      ///< may be empty
  /// The processes that share the replays (an mpirun job); null: this process alone.
  const ProcessGroup* processes = nullptr;
  /// Fits shared with other searches of the same model on the same profile (fit_memo.hpp:
  /// training-time's grid); null: this search's own.
  FitMemo* memo = nullptr;
  /// A layout to replay in full beside the search's own replays (`plan`: the scenario's, set
  /// against the best), in the first round of full replays; its result in
  /// SearchResult::reference.
  std::optional<Layout> reference;
};

struct EstimatedLayout {
  Layout layout;
  LayoutEstimate estimate;
  std::size_t index = 0;  ///< position in the enumeration (the tie-break)
};

/// A layout replayed in full (representative ranks).
struct ReplayedLayout {
  EstimatedLayout candidate;
  std::size_t estimate_rank = 0;  ///< 1-based place in the estimated ranking
  Time iteration;
  double tokens_per_s = 0;
  FlopRate model_rate_per_gpu;  ///< model FLOPs (3 × forward) per second per GPU
  Bytes peak;                   ///< largest over GPUs
  bool fits = false;
  TimeBreakdown breakdown;  ///< of the first recorded rank (pipeline stage 0)
};

struct SearchResult {
  std::int64_t gpus = 0;
  std::int64_t global_batch = 0;
  Bytes capacity;
  std::size_t layouts = 0;               ///< valid layouts enumerated
  std::size_t pruned_by_floor = 0;       ///< model state alone above capacity
  std::size_t pruned_by_estimate = 0;    ///< estimated peak above capacity·(1 + margin)
  std::size_t kernel_layouts = 0;        ///< tensor blocks whose kernels set floors (4 sums each)
  std::size_t compute_layouts = 0;  ///< tensor blocks replayed alone for floors (4 replays each)
  std::size_t traffic_layouts = 0;  ///< reduced layouts whose link traffic set floors (4 tallies)
  std::size_t bounded_out = 0;           ///< floor above the 4·K-th best estimate: not estimated
  std::size_t reduced_layouts = 0;       ///< distinct reduced layouts replayed (4 replays each)
  std::size_t replayed = 0;              ///< layouts replayed in full
  std::vector<EstimatedLayout> ranked;   ///< survivors, by estimated iteration time
  std::vector<ReplayedLayout> best;      ///< up to K that fit, by replayed iteration time
  std::vector<ReplayedLayout> rejected;  ///< replayed and over capacity
  std::optional<ReplayedLayout> reference;  ///< SearchOptions::reference replayed (no estimate)
};

/// Replays `layout` in full at `global_batch`; estimate fields of the result are left empty.
/// `op_lists` (may be null): where the Program's op lists come from and go back to.
ReplayedLayout replay_layout(const ModelSpec& model, const hw::HardwareProfile& hardware,
                             const Layout& layout, std::int64_t global_batch,
                             OpListPool* op_lists = nullptr);

/// The search. Throws Infeasible with what is wrong and what would do: gpus < 1; a global
/// batch too small for the GPUs (more data-parallel replicas needed than sequences); a GPU
/// count no split of tensor × pipeline × data can use; no layout that fits in memory.
SearchResult search_layouts(const ModelSpec& model, const hw::HardwareProfile& hardware,
                            std::int64_t gpus, std::int64_t global_batch,
                            const SearchOptions& options = {});

}  // namespace trainsim::sim
