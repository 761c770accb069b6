#include "sim/analysis/training_time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <variant>

#include "models/errors.hpp"
#include "models/parallel_for.hpp"
#include "models/program_size.hpp"
#include "models/spread.hpp"

namespace trainsim::sim {
namespace {

struct RunScale {
  double loss_nats = 0.0;
  bool from_reference = false;
  scaling::Tokens critical;
  double min_steps = 0.0;
};

// Where B_crit and S_min come from. B_crit: the target loss's, else the reference batch taken
// as critical. S_min: with a token count, N tokens at B_crit mean E = N = 2·E_min, so
// S_min = N / (2·B_crit); else eq. 1.6 at the target loss.
RunScale run_scale(const ModelSpec& model, const TrainingTimeRequest& r, double parameters) {
  if (r.tokens && !(*r.tokens > 0.0)) {
    throw Infeasible(fmt::format("tokens: {:g}; use a positive number of tokens", *r.tokens));
  }
  if (!r.tokens && !r.target_loss) {
    throw Infeasible(
        "tokens, target_loss: neither given; give the tokens of the run, a target "
        "loss, or both");
  }
  RunScale s;
  if (r.target_loss) {
    const double floor = scaling::loss_floor(parameters);
    if (!(*r.target_loss > floor)) {
      throw Infeasible(fmt::format(
          "target_loss: {:g} nats is at or below what a model of {:.4g} non-embedding "
          "parameters reaches with unlimited data, (N_c/N)^α_N = {:.4f} nats; use a loss above "
          "that",
          *r.target_loss, parameters, floor));
    }
    s.loss_nats = *r.target_loss;
    s.critical = scaling::critical_batch(s.loss_nats);
  } else {
    if (r.reference_batch < 1) {
      throw Infeasible(fmt::format(
          "reference_batch: {} sequences; without a target loss the critical batch is this "
          "batch, so use 1 or more",
          r.reference_batch));
    }
    s.from_reference = true;
    s.critical = scaling::Tokens::of(static_cast<double>(r.reference_batch * model.seq_len));
    s.loss_nats = scaling::loss_at_critical_batch(s.critical);
  }
  s.min_steps = r.tokens ? *r.tokens / (2.0 * s.critical.count())
                         : scaling::min_steps_to_loss(parameters, s.loss_nats);
  return s;
}

// The grid's centre: B_crit in sequences rounded to the nearest 2^a or 3·2^a (nearest by
// ratio, ties to the smaller): clusters come in 2^k and 3·2^k GPUs, and a centre of the same
// form keeps the halvings of both splittable (1536 sequences on 12288 GPUs, lamy-poirier2021).
std::int64_t grid_centre(double sequences) {
  if (sequences <= 1.0) return 1;
  const int a = static_cast<int>(std::floor(std::log2(sequences)));
  std::int64_t best = std::int64_t{1} << a;
  for (std::int64_t c : {(std::int64_t{3} << a) / 2, std::int64_t{1} << (a + 1)}) {
    if (c > best && std::abs(std::log(static_cast<double>(c) / sequences)) <
                        std::abs(std::log(static_cast<double>(best) / sequences))) {
      best = c;
    }
  }
  return best;
}

// centre·2^k for k = −span … span, the halvings kept while whole.
std::vector<std::int64_t> batch_grid(scaling::Tokens critical, std::int64_t seq_len, int span) {
  const std::int64_t centre = grid_centre(critical.count() / static_cast<double>(seq_len));
  std::vector<std::int64_t> out;
  for (int k = span; k >= 1; --k) {
    if (centre % (std::int64_t{1} << k) == 0) out.push_back(centre >> k);
  }
  for (int k = 0; k <= span; ++k)
    out.push_back(centre << k);
  return out;
}

// max_gpus, max_gpus/2, … down to min_gpus, while the halving stays whole.
std::vector<std::int64_t> gpu_grid(std::int64_t max_gpus, std::int64_t min_gpus) {
  std::vector<std::int64_t> out;
  for (std::int64_t n = max_gpus; n >= min_gpus; n /= 2) {
    out.push_back(n);
    if (n % 2 != 0) break;
  }
  return out;
}

// Why a grid point has no replayed layout: the search's Infeasible message, and whether its
// best layout was only too large to record here.
struct NoLayout {
  std::string reason;
  bool too_large = false;
};

// A grid point's best layout, or why it has none.
using PointOutcome = std::variant<ReplayedLayout, NoLayout>;

void encode_point(ByteWriter& out, const PointOutcome& outcome) {
  out.put(outcome.index());
  if (const auto* best = std::get_if<ReplayedLayout>(&outcome)) {
    out.put(*best);  // plain numbers, the layout included
  } else {
    out.put_string(std::get<NoLayout>(outcome).reason);
    out.put(std::get<NoLayout>(outcome).too_large);
  }
}

PointOutcome decode_point(ByteReader& in) {
  if (in.get<std::size_t>() == 0) return in.get<ReplayedLayout>();
  NoLayout none;
  none.reason = in.get_string();
  none.too_large = in.get<bool>();
  return none;
}

struct TimeCost {
  double time = 0.0;
  double cost = 0.0;
};

// Indices not dominated in (time, cost), by increasing time (ties: cost, then index).
std::vector<std::size_t> time_cost_front(const std::vector<TimeCost>& points) {
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (points[a].time != points[b].time) return points[a].time < points[b].time;
    return points[a].cost < points[b].cost;
  });
  // By increasing time, a point is on the front when it is cheaper than every faster one.
  std::vector<std::size_t> front;
  for (std::size_t i : order) {
    if (front.empty() || points[i].cost < points[front.back()].cost) front.push_back(i);
  }
  return front;
}

// Each point's goodput, on the request's threads. Every process of a job computes them all:
// a point's figures depend on its own seed alone, so they are the same wherever they are
// computed, and they cost a small share of the layout searches.
void add_failures(TrainingTimeResult& result, const ModelSpec& model,
                  const hw::HardwareProfile& hardware, const TrainingTimeRequest& request) {
  const FailureOptions& options = *request.failures;
  const hw::ReliabilitySpec& reliability = *hardware.reliability;
  for_each_in_parallel(
      result.points.size(),
      [&](std::size_t i) {
        TrainingPoint& p = result.points[i];
        p.goodput = point_goodput(model, p.batch, p.gpus, hardware.node.gpus, p.layout.iteration,
                                  p.steps, reliability, options);
      },
      request.search.threads);
  FailureRanking ranking;
  ranking.options = options;
  ranking.front = failure_pareto_front(result.points);
  ranking.best = ranking.front.front();
  result.failures = std::move(ranking);
}

}  // namespace

double steps_at(double min_steps, scaling::Tokens critical, std::int64_t batch,
                std::int64_t seq_len) {
  return min_steps *
         scaling::steps_factor(scaling::Tokens::of(static_cast<double>(batch * seq_len)), critical);
}

std::vector<std::size_t> pareto_front(const std::vector<TrainingPoint>& points) {
  std::vector<TimeCost> figures;
  for (const TrainingPoint& p : points)
    figures.push_back({p.seconds, p.gpu_hours});
  return time_cost_front(figures);
}

std::vector<std::size_t> failure_pareto_front(const std::vector<TrainingPoint>& points) {
  std::vector<TimeCost> figures;
  for (const TrainingPoint& p : points)
    figures.push_back({p.goodput.value().monte_carlo.p50, p.goodput.value().gpu_hours});
  return time_cost_front(figures);
}

TrainingTimeResult search_training_time(const ModelSpec& model, const hw::HardwareProfile& hardware,
                                        const TrainingTimeRequest& request) {
  TrainingTimeResult result;
  result.parameters = scaling::non_embedding_parameters(model);
  const RunScale scale = run_scale(model, request, result.parameters);
  if (request.max_gpus < 1) {
    throw Infeasible(fmt::format("max_gpus: {}; use 1 or more", request.max_gpus));
  }
  if (request.min_gpus < 1 || request.min_gpus > request.max_gpus) {
    throw Infeasible(
        fmt::format("min_gpus: {}; use 1 to max_gpus ({})", request.min_gpus, request.max_gpus));
  }
  // Each step of the span doubles the largest batch: 10 spans B_crit/1024 to 1024·B_crit,
  // far past where S or E stop changing, and keeps the shifts of batch_grid well defined.
  if (request.batch_span < 0 || request.batch_span > 10) {
    throw Infeasible(fmt::format("batch_span: {}; use 0 to 10", request.batch_span));
  }
  if (request.failures && !hardware.reliability) {
    throw Infeasible(fmt::format(
        "failures: profile '{}' has no reliability: section, so nothing interrupts its runs; "
        "leave failures out or add one (hwprofiles/README.md, \"reliability\")",
        hardware.name));
  }
  if (request.failures && request.failures->samples < 1) {
    throw Infeasible(fmt::format("failures.samples: {}; use 1 or more Monte Carlo runs",
                                 request.failures->samples));
  }
  result.loss_nats = scale.loss_nats;
  result.loss_from_reference = scale.from_reference;
  result.critical_batch = scale.critical;
  result.min_steps = scale.min_steps;
  result.min_tokens = scale.critical * scale.min_steps;
  result.batches = batch_grid(scale.critical, model.seq_len, request.batch_span);
  result.gpu_counts = gpu_grid(request.max_gpus, request.min_gpus);

  // GPUs that not even the largest batch can lay out are an impossible request, not a
  // grid point to skip: every smaller batch can use fewer GPUs still.
  const std::int64_t largest = result.batches.back();
  if (enumerate_layouts(model, request.max_gpus, largest, request.search.space).empty()) {
    throw Infeasible(fmt::format(
        "max_gpus: {} GPUs: the largest batch searched, {} sequences ({:.3g} × B_crit), has no "
        "layout on them (data parallelism needs a batch slice per replica, tensor × pipeline × "
        "data must make the count); use fewer GPUs or a count that splits",
        request.max_gpus, largest,
        static_cast<double>(largest * model.seq_len) / scale.critical.count()));
  }

  // One item per (batch, GPU count), searched whole on one thread: a search gives the same
  // on one thread as on many (layout_search.hpp), and with K = 1 its replays run one at a
  // time, so points side by side keep every thread busy where one search at a time on all of
  // them would leave them idle. With several processes, each takes whole points. Every
  // search is of this model on this profile: their fits are shared.
  std::vector<std::pair<std::int64_t, std::int64_t>> grid;
  for (std::int64_t batch : result.batches) {
    for (std::int64_t gpus : result.gpu_counts)
      grid.emplace_back(batch, gpus);
  }
  FitMemo memo;
  SearchOptions options = request.search;
  options.processes = nullptr;
  options.progress = nullptr;
  options.threads = 1;
  options.memo = &memo;
  // The largest batches first: their replays hold the most micro batches and take longest,
  // and a long one started last would leave the other threads idle at the end.
  const auto search_point = [&](std::size_t k) -> PointOutcome {
    const auto [batch, gpus] = grid[grid.size() - 1 - k];
    try {
      return search_layouts(model, hardware, gpus, batch, options).best.front();
    } catch (const TooLargeToRecord& e) {
      return NoLayout{e.what(), true};
    } catch (const Infeasible& e) {
      return NoLayout{e.what(), false};
    }
  };
  if (request.search.progress) request.search.progress("points", 0, grid.size());
  std::vector<PointOutcome> outcomes = spread<PointOutcome>(
      request.search.processes, grid.size(), request.search.threads, search_point, encode_point,
      decode_point, in_phase(request.search.progress, "points"));
  std::reverse(outcomes.begin(), outcomes.end());
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const auto [batch, gpus] = grid[i];
    if (const auto* none = std::get_if<NoLayout>(&outcomes[i])) {
      result.skipped.push_back({batch, gpus, none->reason, none->too_large});
      continue;
    }
    TrainingPoint point;
    point.batch = batch;
    point.gpus = gpus;
    point.layout = std::get<ReplayedLayout>(outcomes[i]);
    point.steps = steps_at(scale.min_steps, scale.critical, batch, model.seq_len);
    point.seconds = point.steps * point.layout.iteration.seconds();
    point.gpu_hours = point.seconds * static_cast<double>(gpus) / 3600.0;
    result.points.push_back(std::move(point));
  }
  if (result.points.empty()) {
    const auto at_largest = std::find_if(
        result.skipped.begin(), result.skipped.end(),
        [&](const SkippedPoint& k) { return k.batch == largest && k.gpus == request.max_gpus; });
    throw Infeasible(fmt::format(
        "no batch of {} to {} sequences has a layout that fits on {} to {} GPUs (at {} sequences "
        "on {} GPUs: {})",
        result.batches.front(), largest, result.gpu_counts.back(), request.max_gpus, largest,
        request.max_gpus, at_largest == result.skipped.end() ? "" : at_largest->reason));
  }
  result.front = pareto_front(result.points);
  result.best = result.front.front();
  const std::int64_t best_batch = result.points[result.best].batch;
  result.best_at_batch_edge = result.batches.size() > 1 && (best_batch == result.batches.front() ||
                                                            best_batch == result.batches.back());
  if (request.failures) add_failures(result, model, hardware, request);
  return result;
}

}  // namespace trainsim::sim
