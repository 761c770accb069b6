#include "sim/analysis/isoefficiency.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <variant>

#include "models/build_program.hpp"
#include "models/spread.hpp"
#include "sim/replay.hpp"
#include "sim/stuck_report.hpp"

namespace trainsim::sim {
namespace {

// The scenario at `size` on the searched axis, as one micro batch on a TP block alone. The FFN
// width keeps its ratio to the hidden size (4h in every shipped scenario).
Scenario at_size(const Scenario& base, IsoAxis axis, std::int64_t size) {
  Scenario s = base;
  if (axis == IsoAxis::hidden) {
    s.model.hidden = size;
    s.model.ffn = size * base.model.ffn / base.model.hidden;
  } else {
    s.training.micro_batch = size;
  }
  s.parallel.data = DataParallel{};
  s.parallel.pipeline = PipelineParallel{};
  s.parallel.context = ContextParallel{};
  s.training.global_batch = s.training.micro_batch;
  s.gpus = s.parallel.tensor.size;
  return s;
}

// The same model and batch on one GPU.
Scenario on_one_gpu(const Scenario& s) {
  Scenario one = s;
  one.parallel.tensor = TensorParallel{};
  one.parallel.context = ContextParallel{};
  one.gpus = 1;
  return one;
}

Time iteration_time(const Scenario& s, const hw::HardwareProfile& hardware) {
  const program::Program program = build_program(s, ProgramScope::representative);
  ReplayOptions options;
  options.record_op_timings = false;
  const SimulationResult result = replay(program, hardware, options);
  if (!result.stuck.empty()) {
    throw std::runtime_error(fmt::format("isoefficiency replay of {} on {} GPUs: {}", s.name,
                                         s.gpus, describe_deadlock(program, result)));
  }
  return result.iteration_time;
}

bool accepted(const Scenario& s) {
  try {
    check_supported(s.model, s.parallel, s.training);
    return true;
  } catch (const Infeasible&) {
    return false;
  }
}

// The smallest size the plan accepts: a multiple of the heads (hidden) or any batch, times at
// most p (every split the grids make of the hidden size or the batch divides p). Every
// requirement is a divisibility, so its multiples are accepted too.
std::int64_t size_step(const Scenario& parallel, IsoAxis axis, std::int64_t max_size) {
  const std::int64_t unit = axis == IsoAxis::hidden ? parallel.model.heads : 1;
  for (std::int64_t j = 1; j <= parallel.parallel.tensor.size && j * unit <= max_size; ++j) {
    if (accepted(at_size(parallel, axis, j * unit))) return j * unit;
  }
  // The reason, from the executor's own check at the smallest size.
  const Scenario s = at_size(parallel, axis, unit);
  check_supported(s.model, s.parallel, s.training);
  throw Infeasible(fmt::format("no {} up to {} makes the {} plan on {} GPUs valid", to_string(axis),
                               max_size, to_string(parallel.parallel.tensor.kind),
                               parallel.parallel.tensor.size));
}

// One (scheme, p) of the analysis: its point, or why it has none.
using CountOutcome = std::variant<IsoPoint, SkippedCount>;

void encode_outcome(ByteWriter& out, const CountOutcome& outcome) {
  out.put(outcome.index());
  if (const auto* point = std::get_if<IsoPoint>(&outcome)) {
    out.put(point->gpus);
    out.put(point->size);
    out.put(point->step);
    out.put(point->work);
    out.put(point->efficiency);
    out.put(point->single_gpu_time);
    out.put(point->parallel_time);
    out.put_vector(point->probes);
    return;
  }
  const auto& skipped = std::get<SkippedCount>(outcome);
  out.put(skipped.gpus);
  out.put_string(skipped.reason);
  out.put(skipped.best_efficiency.has_value());
  out.put(skipped.best_efficiency.value_or(0.0));
}

CountOutcome decode_outcome(ByteReader& in) {
  if (in.get<std::size_t>() == 0) {
    IsoPoint point;
    point.gpus = in.get<std::int64_t>();
    point.size = in.get<std::int64_t>();
    point.step = in.get<std::int64_t>();
    point.work = in.get<Flops>();
    point.efficiency = in.get<double>();
    point.single_gpu_time = in.get<Time>();
    point.parallel_time = in.get<Time>();
    point.probes = in.get_vector<IsoProbe>();
    return point;
  }
  SkippedCount skipped;
  skipped.gpus = in.get<std::int64_t>();
  skipped.reason = in.get_string();
  const bool has_best = in.get<bool>();
  const double best = in.get<double>();
  if (has_best) skipped.best_efficiency = best;
  return skipped;
}

}  // namespace

std::string_view to_string(IsoAxis axis) {
  return axis == IsoAxis::hidden ? "hidden" : "batch";
}

IsoProbe evaluate_efficiency(const Scenario& parallel, const hw::HardwareProfile& hardware,
                             IsoAxis axis, std::int64_t size) {
  const Scenario s = at_size(parallel, axis, size);
  const Time t1 = iteration_time(on_one_gpu(s), hardware);
  const Time tp = iteration_time(s, hardware);
  const double p = static_cast<double>(s.parallel.tensor.size);
  return {size, t1.seconds() / (p * tp.seconds()), t1, tp};
}

IsoPoint find_isoefficient_size(const Scenario& parallel, const hw::HardwareProfile& hardware,
                                const IsoSearch& search) {
  if (!(search.target > 0.0 && search.target < 1.0)) {
    throw std::invalid_argument(
        fmt::format("target efficiency {} is outside (0, 1): E = T1/(p·Tp) reaches 1 only without "
                    "any overhead",
                    search.target));
  }
  IsoPoint point;
  point.gpus = parallel.parallel.tensor.size;
  point.step = size_step(parallel, search.axis, search.max_size);
  auto probe = [&](std::int64_t multiple) {
    point.probes.push_back(
        evaluate_efficiency(parallel, hardware, search.axis, multiple * point.step));
    return point.probes.back().efficiency;
  };
  auto probe_at = [&](std::int64_t size) {
    return *std::find_if(point.probes.begin(), point.probes.end(),
                         [&](const IsoProbe& p) { return p.size == size; });
  };
  // E(hi·step) >= target > E(lo·step) (lo = 0: no size below the target was seen).
  std::int64_t hi = search.max_size / point.step;
  if (probe(hi) < search.target) {
    double best = 0.0;
    for (const IsoProbe& p : point.probes)
      best = std::max(best, p.efficiency);
    throw TargetUnreachable(
        fmt::format("{} on {} GPUs: E = {:.3f} at {} {} (the largest searched), below the "
                    "target {}",
                    to_string(parallel.parallel.tensor.kind), point.gpus, best,
                    to_string(search.axis), hi * point.step, search.target),
        best);
  }
  // Down from the top in halvings to the first size below the target: the crossing found is
  // the one of the large sizes. At small hidden sizes the logit GEMM (T·h·V) outweighs the
  // layers (T·h²) and splits with little communication, so E can be high there, dip, and
  // rise again; a bisection from the smallest size could stop in that first, spurious range.
  std::int64_t lo = hi / 2;
  while (lo >= 1 && probe(lo) >= search.target) {
    hi = lo;
    lo /= 2;
  }
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (probe(mid) >= search.target ? hi : lo) = mid;
  }
  point.size = hi * point.step;  // probed: every hi above was
  const Scenario s = at_size(parallel, search.axis, point.size);
  point.work = s.model.model_flops(s.training.global_batch);
  const IsoProbe at = probe_at(point.size);
  point.single_gpu_time = at.single_gpu_time;
  point.parallel_time = at.parallel_time;
  point.efficiency = at.efficiency;
  return point;
}

PowerFit fit_power_law(std::span<const double> xs, std::span<const double> ys) {
  if (xs.size() != ys.size() || xs.size() < 2) {
    throw std::invalid_argument(fmt::format(
        "a power-law fit needs 2 or more (x, y) pairs; got {} x and {} y", xs.size(), ys.size()));
  }
  double sx = 0.0;
  double sy = 0.0;
  double sxx = 0.0;
  double sxy = 0.0;
  const double n = static_cast<double>(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (!(xs[i] > 0.0) || !(ys[i] > 0.0)) {
      throw std::invalid_argument(fmt::format(
          "a power-law fit needs positive values; point {} is ({}, {})", i, xs[i], ys[i]));
    }
    const double lx = std::log(xs[i]);
    const double ly = std::log(ys[i]);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  const double denominator = n * sxx - sx * sx;
  if (!(std::abs(denominator) > 1e-12 * n * sxx)) {
    throw std::invalid_argument("a power-law fit needs at least two different x values");
  }
  PowerFit fit;
  fit.exponent = (n * sxy - sx * sy) / denominator;
  fit.coefficient = std::exp((sy - fit.exponent * sx) / n);
  fit.points = xs.size();
  return fit;
}

std::vector<std::int64_t> iso_device_counts(TensorKind kind, std::int64_t depth, std::int64_t heads,
                                            std::int64_t max_gpus) {
  std::vector<std::int64_t> counts;
  if (kind == TensorKind::one_d) {
    for (std::int64_t p = 2; p <= std::min(heads, max_gpus); ++p) {
      if (heads % p == 0) counts.push_back(p);
    }
    return counts;
  }
  for (std::int64_t q = 2;; ++q) {
    const std::int64_t p = kind == TensorKind::two_d            ? q * q
                           : kind == TensorKind::two_and_half_d ? depth * q * q
                                                                : q * q * q;
    if (p > max_gpus) break;
    counts.push_back(p);
  }
  return counts;
}

std::vector<SchemeIsoefficiency> analyze_isoefficiency(const Scenario& scenario,
                                                       const hw::HardwareProfile& hardware,
                                                       std::span<const TensorKind> kinds,
                                                       const IsoefficiencyOptions& options,
                                                       const PlanForScheme& plan_for) {
  // Every (scheme, p) is one item, searched independently: spread over the processes and
  // threads, then gathered per scheme in order.
  std::vector<std::pair<std::size_t, std::int64_t>> items;
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    for (const std::int64_t p :
         iso_device_counts(kinds[k], options.depth, scenario.model.heads, options.max_gpus))
      items.emplace_back(k, p);
  }
  if (options.progress) options.progress("isoefficiency", 0, items.size());
  const std::vector<CountOutcome> outcomes = spread<CountOutcome>(
      options.processes, items.size(), options.threads,
      [&](std::size_t i) -> CountOutcome {
        const auto [k, p] = items[i];
        try {
          Scenario s = scenario;
          s.parallel = plan_for(kinds[k], p);
          return find_isoefficient_size(s, hardware, options.search);
        } catch (const TargetUnreachable& e) {
          return SkippedCount{p, e.what(), e.best_efficiency()};
        } catch (const Infeasible& e) {
          return SkippedCount{p, e.what(), std::nullopt};
        }
      },
      encode_outcome, decode_outcome, in_phase(options.progress, "isoefficiency"));
  std::vector<SchemeIsoefficiency> out(kinds.size());
  for (std::size_t k = 0; k < kinds.size(); ++k)
    out[k].kind = kinds[k];
  for (std::size_t i = 0; i < items.size(); ++i) {
    SchemeIsoefficiency& scheme = out[items[i].first];
    if (const auto* point = std::get_if<IsoPoint>(&outcomes[i])) {
      scheme.points.push_back(*point);
    } else {
      scheme.skipped.push_back(std::get<SkippedCount>(outcomes[i]));
    }
  }
  for (SchemeIsoefficiency& scheme : out) {
    std::vector<double> ps;
    std::vector<double> ws;
    for (const IsoPoint& point : scheme.points) {
      if (point.at_floor()) continue;
      ps.push_back(static_cast<double>(point.gpus));
      ws.push_back(point.work.count());
    }
    if (ps.size() >= 2) scheme.fit = fit_power_law(ps, ws);
  }
  if (options.progress) options.progress("isoefficiency", items.size(), items.size());
  return out;
}

}  // namespace trainsim::sim
