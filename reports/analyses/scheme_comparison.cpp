#include "reports/analyses/scheme_comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "models/build_program.hpp"
#include "models/errors.hpp"
#include "models/tensor_grid.hpp"
#include "reports/program_measures.hpp"
#include "reports/scenario_run.hpp"

namespace trainsim::reports {
namespace {

// The integer r with r^power == n, if there is one.
std::optional<std::int64_t> exact_root(std::int64_t n, int power) {
  for (std::int64_t r = 1;; ++r) {
    std::int64_t p = 1;
    for (int i = 0; i < power; ++i)
      p *= r;
    if (p == n) return r;
    if (p > n) return std::nullopt;
  }
}

// "1d, 2d, 2.5d": every kind's name through to_string, so a kind added later is listed too.
std::string known_tensor_kinds() {
  std::string names;
  for (int k = 0; k < 256; ++k) {
    const std::string_view name = to_string(static_cast<TensorKind>(k));
    if (name == "?") break;
    names += fmt::format("{}{}", names.empty() ? "" : ", ", name);
  }
  return names;
}

// Kinds are compared with if, not switch, so that a kind added later (3d) compiles here and
// takes the last branch.
std::string layout_of(const TensorParallel& t) {
  if (t.kind == TensorKind::one_d) return fmt::format("t={}", t.size);
  if (t.kind == TensorKind::two_d) return fmt::format("q={}", t.grid_side());
  if (t.kind == TensorKind::two_and_half_d) {
    return fmt::format("q={} d={}", t.grid_side(), t.depth);
  }
  // A q x q x q cube (3D).
  const std::optional<std::int64_t> q = exact_root(t.size, 3);
  return q ? fmt::format("q={} cube", *q) : fmt::format("size {}", t.size);
}

// The scenario's plan with the variant's tensor scheme (see the header for the rules).
// Returns the problem that stops the variant before anything is built, if any.
std::optional<std::string> make_plan(const ParallelPlan& base, const TensorVariant& v,
                                     const Scenario& scenario, SchemeResult& row) {
  ParallelPlan& plan = row.plan;
  plan = base;
  plan.tensor.kind = v.kind;
  plan.tensor.depth = 1;
  if (v.kind == TensorKind::two_and_half_d) {
    // The scenario's own depth when it is 2.5D already, so that its row is its plan.
    const bool stated = base.tensor.kind == TensorKind::two_and_half_d;
    const std::optional<std::int64_t> depth =
        v.depth ? v.depth : (stated ? base.tensor.depth : default_depth(base.tensor.size));
    if (!depth) {
      row.layout =
          std::string(1, '-');  // not operator=(const char*): GCC 12 -Wrestrict false positive
      return fmt::format(
          "no depth d >= 2 makes tensor.size {} a stack of d q x q grids with q >= 2; give "
          "--depth",
          base.tensor.size);
    }
    plan.tensor.depth = *depth;
    if (stated && *depth != base.tensor.depth) {
      row.notes.push_back(fmt::format("depth {} → {}", base.tensor.depth, *depth));
    }
  }
  if (v.kind != TensorKind::one_d && base.tensor.sequence_parallel) {
    plan.tensor.sequence_parallel = false;
    row.notes.emplace_back("sequence parallelism off (1d only)");
  }
  if (v.kind != TensorKind::one_d && base.tensor.comm_overlap) {
    plan.tensor.comm_overlap = false;
    row.notes.emplace_back("TP communication overlap off (1d only)");
  }
  // 1D has no grid; a grid kind keeps the scenario's order if it has one of that name, else
  // takes its own default (row-major for 2D/2.5D, weight-major for the 3D cube).
  if (v.kind == TensorKind::one_d) plan.tensor.grid_order = default_grid_order(v.kind);
  std::optional<GridProblem> grid = tensor_grid_problem(scenario.model, plan, scenario.training);
  if (grid && grid->field == "parallel.tensor.grid_order") {
    const GridOrder order = default_grid_order(v.kind);
    row.notes.push_back(
        fmt::format("grid order {} → {}", to_string(plan.tensor.grid_order), to_string(order)));
    plan.tensor.grid_order = order;
    grid = tensor_grid_problem(scenario.model, plan, scenario.training);
  }
  if (!grid) return std::nullopt;
  // No grid of this size or depth exists: nothing to lay out.
  if (grid->field == "parallel.tensor.size" || grid->field == "parallel.tensor.depth") {
    row.layout = std::string(1, '-');
  }
  return fmt::format("{}: {}", grid->field, grid->message);
}

Scenario with_mode(const Scenario& base, const ParallelPlan& plan, RunMode mode) {
  Scenario s = base;
  s.parallel = plan;
  s.training.mode = mode;
  if (mode == RunMode::inference) {
    s.parallel.recompute = Recompute::none;
    s.parallel.data.zero = 0;
  }
  return s;
}

void run_variant(const Scenario& scenario, const hw::HardwareProfile& hardware,
                 const CompareOptions& options, SchemeResult& row) {
  const Scenario training = with_mode(scenario, row.plan, RunMode::training);
  const Scenario inference = with_mode(scenario, row.plan, RunMode::inference);
  try {
    check_supported(training.model, training.parallel, training.training);
    const ScenarioRun train = run_scenario(training, hardware);
    row.step_time = train.summary.iteration_time;
    row.forward_backward_time = forward_backward_time(train.program, train.result);
    row.tokens_per_s = train.summary.tokens_per_s;
    row.peak_memory = train.summary.memory.peak;
    row.fits = train.summary.memory.fits;
  } catch (const Infeasible& e) {
    row.problem = e.what();
    return;
  }
  // A plan that trains but whose inference the executor cannot run yet (a pipeline) keeps
  // its training figures; the row's note says why its inference columns are empty.
  try {
    check_supported(inference.model, inference.parallel, inference.training);
    const ScenarioRun infer = run_scenario(inference, hardware);
    row.inference_time = infer.summary.iteration_time;
    row.inference_tokens_per_s = infer.summary.tokens_per_s;
    row.inference_peak_memory = infer.summary.memory.peak;
  } catch (const Infeasible& e) {
    row.notes.push_back(fmt::format("no inference run: {}", e.what()));
  }
  if (options.max_batch) row.max_batch = sim::find_max_batch(training, hardware);
}

std::optional<double> ratio(const std::optional<Time>& numerator,
                            const std::optional<Time>& denominator) {
  if (!numerator || !denominator || *denominator <= Time::zero()) return std::nullopt;
  return *numerator / *denominator;
}

}  // namespace

std::vector<TensorVariant> parse_tensor_variants(std::string_view list,
                                                 std::optional<std::int64_t> depth) {
  std::vector<TensorVariant> out;
  std::vector<std::string_view> seen;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const std::size_t end = std::min(list.find(',', begin), list.size());
    const std::string_view name = list.substr(begin, end - begin);
    const std::optional<TensorKind> kind = tensor_kind_from_string(name);
    if (!kind) {
      throw std::invalid_argument(
          fmt::format("unknown tensor scheme \"{}\"; valid: {}", name, known_tensor_kinds()));
    }
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
      throw std::invalid_argument(fmt::format("tensor scheme \"{}\" is listed twice", name));
    }
    seen.push_back(name);
    out.push_back({*kind, *kind == TensorKind::two_and_half_d ? depth : std::nullopt});
    begin = end + 1;
  }
  return out;
}

std::optional<std::int64_t> default_depth(std::int64_t size) {
  std::optional<std::int64_t> best;
  double best_skew = 0.0;
  for (std::int64_t d = 2; d <= size; ++d) {
    if (size % d != 0) continue;
    const std::optional<std::int64_t> q = exact_root(size / d, 2);
    if (!q || *q < 2) continue;
    const double skew = static_cast<double>(std::max(*q, d)) / static_cast<double>(std::min(*q, d));
    // d ascends, so q descends: a strict improvement keeps the larger q on ties.
    if (!best || skew < best_skew) {
      best = d;
      best_skew = skew;
    }
  }
  return best;
}

SchemeResult variant_plan(const Scenario& scenario, const TensorVariant& variant) {
  SchemeResult row;
  row.variant = variant;
  row.name = std::string(to_string(variant.kind));
  row.problem = make_plan(scenario.parallel, variant, scenario, row);
  if (row.layout.empty()) row.layout = layout_of(row.plan.tensor);
  return row;
}

std::vector<SchemeResult> compare_tensor_schemes(const Scenario& scenario,
                                                 const hw::HardwareProfile& hardware,
                                                 std::span<const TensorVariant> variants,
                                                 const CompareOptions& options) {
  std::vector<SchemeResult> rows;
  rows.reserve(variants.size());
  for (const TensorVariant& v : variants) {
    if (options.progress) options.progress("compare", rows.size(), variants.size());
    SchemeResult& row = rows.emplace_back(variant_plan(scenario, v));
    if (!row.problem) run_variant(scenario, hardware, options, row);
  }
  if (options.progress) options.progress("compare", rows.size(), variants.size());
  if (rows.empty()) return rows;
  const SchemeResult& first = rows.front();
  for (SchemeResult& row : rows) {
    row.step_speedup = ratio(first.step_time, row.step_time);
    row.inference_speedup = ratio(first.inference_time, row.inference_time);
    if (first.max_batch && row.max_batch && first.max_batch->global_batch > 0) {
      row.max_batch_ratio = static_cast<double>(row.max_batch->global_batch) /
                            static_cast<double>(first.max_batch->global_batch);
    }
  }
  return rows;
}

}  // namespace trainsim::reports
