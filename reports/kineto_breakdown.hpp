#pragma once
// What a PyTorch profiler trace measured, per ProfilerStep: wall time, the GPU's busy time
// (the union of its activities), its idle gaps inside its own work (the GPU waiting on the host
// or a synchronisation), and the activities' time per kernel family and per stream.
// `trainsim validate-run --kineto TRACE` prints it (and compares it with a scenario's
// prediction: reports/kineto_validation.hpp).

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inputs/kineto_trace.hpp"

namespace trainsim::reports {

/// What a trace without steps lacks, and how to get them: torch.profiler writes its
/// ProfilerStep#N spans only under a schedule= (prof.step() alone writes none).
inline constexpr std::string_view kNoProfilerSteps =
    "no ProfilerStep#N spans: profile with a schedule= and prof.step() after each step, or "
    "run each step inside record_function(\"ProfilerStep#N\")";

struct KinetoStep {
  std::int64_t number = 0;
  double wall_s = 0.0;      ///< the ProfilerStep span (host side)
  double gpu_busy_s = 0.0;  ///< union of the step's GPU activities
  double gpu_span_s = 0.0;  ///< its first activity's start to its last one's end
  std::int64_t activities = 0;
  std::array<double, inputs::kKernelFamilyCount> family_s{};
  std::array<std::int64_t, inputs::kKernelFamilyCount> family_count{};
  /// Gaps inside the step's GPU work (span − busy).
  double gpu_idle_s() const { return gpu_span_s - gpu_busy_s; }
  /// The step's time: the longer of its host span and its GPU span. A host that runs ahead of
  /// the GPU leaves the step's span short (28 ms of host time for a 162 ms step on an H100,
  /// 2026-11-27); a host-bound step's GPU span is the shorter one.
  double time_s() const { return std::max(wall_s, gpu_span_s); }
};

struct KinetoStream {
  std::int64_t device = 0;
  std::int64_t stream = 0;
  double busy_s = 0.0;  ///< summed durations over every step
  std::int64_t activities = 0;
};

struct KinetoBreakdown {
  std::string source;
  std::optional<std::int64_t> rank;
  std::optional<std::int64_t> world_size;
  std::vector<KinetoStep> steps;
  std::vector<KinetoStream> streams;  ///< by device, then stream
  /// Activities in no step (before the first, after the last, or in a trace without steps).
  std::int64_t outside_steps = 0;
  /// Steps' activities placed by their launching runtime call's host time (the rest by their
  /// own start time, as a GPU activity without a correlation id must be).
  std::int64_t placed_by_launch = 0;

  double median_wall_s() const;
  /// Median of the steps' time_s().
  double median_step_s() const;
  /// Mean over the steps of a family's time and count (zero without steps).
  double mean_family_s(inputs::KernelFamily f) const;
  double mean_family_count(inputs::KernelFamily f) const;
};

/// Each GPU activity goes to the step whose host span holds the runtime call that launched it
/// (kernels run after their launch, often after the step's host span ended), else to the step
/// whose span holds its own start.
KinetoBreakdown kineto_breakdown(const inputs::KinetoTrace& trace);

/// Per step, per family (mean per step, share of the GPU's busy time) and per stream.
std::string format_kineto_breakdown(const KinetoBreakdown& b);

/// The same as JSON text (deterministic, two-space indent).
std::string kineto_breakdown_json(const KinetoBreakdown& b);

}  // namespace trainsim::reports
