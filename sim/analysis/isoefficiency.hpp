#pragma once
// The isoefficiency analysis behind `trainsim isoefficiency`: for a tensor-parallel scheme and
// a device count p, the problem size at which the parallel efficiency E = T1 / (p·Tp) reaches
// a target, and the growth exponent k of W ~ p^k fitted over the device counts.
//
// T1 is the scenario's model on one GPU with the same micro batch; Tp the replay of one
// iteration of the same model on a tensor-parallel block of p GPUs (no data or pipeline
// parallelism, one micro batch). The size searched is the hidden size at fixed batch, or the
// batch at fixed hidden size. W is the model FLOPs of the iteration (ModelSpec::model_flops):
// the work of the serial run, as isoefficiency is defined (Grama et al.), and one scale for
// both axes. Memory is not a constraint here: a size that would not fit still counts.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/errors.hpp"
#include "models/parallel_plan.hpp"
#include "models/process_group.hpp"
#include "models/scenario.hpp"
#include "sim/hardware_profile.hpp"
#include "sim/progress.hpp"
#include "units/units.hpp"

namespace trainsim::sim {

/// What grows to keep the efficiency: the hidden size (the FFN width keeps its ratio to it,
/// the heads stay) or the batch (sequences of the one micro batch).
enum class IsoAxis : std::uint8_t { hidden, batch };

std::string_view to_string(IsoAxis axis);

struct IsoSearch {
  double target = 0.8;  ///< E to reach, in (0, 1)
  IsoAxis axis = IsoAxis::hidden;
  /// Largest size tried (hidden size or batch); beyond it the target counts as unreachable.
  std::int64_t max_size = 65536;
};

/// One evaluation of E.
struct IsoProbe {
  std::int64_t size = 0;
  double efficiency = 0.0;
  Time single_gpu_time;  ///< T1
  Time parallel_time;    ///< Tp
};

/// Where one scheme at p GPUs reaches the target.
struct IsoPoint {
  std::int64_t gpus = 0;
  std::int64_t size = 0;  ///< smallest multiple of `step` with E >= target
  /// The resolution: sizes tried are multiples of it (the smallest the plan accepts: the
  /// heads, times what the grid splits).
  std::int64_t step = 0;
  Flops work;  ///< W: model FLOPs of one iteration at `size`
  double efficiency = 0.0;
  Time single_gpu_time;          ///< T1
  Time parallel_time;            ///< Tp
  std::vector<IsoProbe> probes;  ///< in the order they were evaluated

  /// The smallest size tried already reaches the target: no crossing was found.
  bool at_floor() const { return size == step; }
};

/// The target cannot be reached within the searched sizes: names the scheme, p and the best E.
class TargetUnreachable : public Infeasible {
 public:
  TargetUnreachable(const std::string& message, double best_efficiency)
      : Infeasible(message), best_efficiency_(best_efficiency) {}
  double best_efficiency() const { return best_efficiency_; }

 private:
  double best_efficiency_;
};

/// E(size) for `parallel` (the scenario with its TP-p plan; its data and pipeline sizes are
/// set to 1 and its batch to one micro batch here) against the same model on one GPU.
IsoProbe evaluate_efficiency(const Scenario& parallel, const hw::HardwareProfile& hardware,
                             IsoAxis axis, std::int64_t size);

/// The smallest multiple of the plan's step with E >= target above the largest size tried
/// that misses it: from the largest size (max_size rounded down to the step) down in halvings
/// until E < target, then bisection between that size and the one above. E grows with the
/// size at large sizes; where it is not monotone (the logit-dominated small hidden sizes, wave
/// quantization) the crossing found is the one nearest the large sizes. Throws
/// std::invalid_argument for a target outside (0, 1), Infeasible when no size up to max_size
/// makes the plan valid, TargetUnreachable when E(largest size) < target. At most
/// 2·log2(max_size / step) + 1 evaluations of E (two replays each).
IsoPoint find_isoefficient_size(const Scenario& parallel, const hw::HardwareProfile& hardware,
                                const IsoSearch& search);

/// k and c of y = c·x^k by least squares on (log x, log y).
struct PowerFit {
  double exponent = 0.0;
  double coefficient = 0.0;
  std::size_t points = 0;
};

/// Throws std::invalid_argument for fewer than 2 points, sizes that differ, a value <= 0, or
/// all x equal.
PowerFit fit_power_law(std::span<const double> xs, std::span<const double> ys);

/// The device counts at which `kind` lays out a block of p <= max_gpus: 1D: divisors of
/// `heads` >= 2; 2D: q²; 2.5D: depth·q²; 3D: q³ (q >= 2). The plan may still reject some
/// (heads not divisible by q): those become skipped rows.
std::vector<std::int64_t> iso_device_counts(TensorKind kind, std::int64_t depth, std::int64_t heads,
                                            std::int64_t max_gpus);

/// The TP plan of `kind` on p GPUs; throws Infeasible saying why there is none. The caller
/// supplies it so that the analysis uses the plan construction of `trainsim compare`
/// (reports/analyses/scheme_comparison.hpp), which sim/ cannot depend on.
using PlanForScheme = std::function<ParallelPlan(TensorKind kind, std::int64_t gpus)>;

struct SkippedCount {
  std::int64_t gpus = 0;
  std::string reason;
  std::optional<double> best_efficiency;  ///< when the plan ran but missed the target
};

struct SchemeIsoefficiency {
  TensorKind kind = TensorKind::one_d;
  std::vector<IsoPoint> points;  ///< ascending p
  std::vector<SkippedCount> skipped;
  /// W ~ p^k over the points above the search floor (2 or more): a point whose smallest size
  /// already reaches the target (size == step) is no crossing, its W only an upper bound (1D
  /// at small p, where the logit GEMM dominates small hidden sizes), so it is left out.
  std::optional<PowerFit> fit;
};

struct IsoefficiencyOptions {
  IsoSearch search;
  std::int64_t max_gpus = 512;
  std::int64_t depth = 2;  ///< 2.5D: fixed, so that p = depth·q² grows with q alone
  /// Told ("isoefficiency", points done, points in all) as points finish (on this process,
  /// under mpirun) and at the end.
  Progress progress = {};
  unsigned threads = 0;  ///< points searched at once (0: one per core)
  /// The processes that share the points (an mpirun job); null: this process alone.
  const ProcessGroup* processes = nullptr;
};

/// Every scheme in `kinds` at every device count of iso_device_counts. A plan the executor
/// rejects, or a target not reached, becomes a skipped count with the reason.
std::vector<SchemeIsoefficiency> analyze_isoefficiency(const Scenario& scenario,
                                                       const hw::HardwareProfile& hardware,
                                                       std::span<const TensorKind> kinds,
                                                       const IsoefficiencyOptions& options,
                                                       const PlanForScheme& plan_for);

}  // namespace trainsim::sim
