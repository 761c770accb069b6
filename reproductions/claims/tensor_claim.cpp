#include "reproductions/claims/tensor_claim.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace trainsim::reproductions::claim_maps {
namespace {

// Everything a scheme's run depends on that a setup can differ in: the model, the training
// spec, the plan, the runtime and the machine's figures. The profile is named and every figure
// a change can set is spelled out; a new kind of change must add what it sets here (two setups
// with the same key replay the same Program on the same cluster).
std::string run_key(const Scenario& s, const hw::HardwareProfile& h, bool max_batch) {
  const ModelSpec& m = s.model;
  const TrainingSpec& t = s.training;
  const ParallelPlan& p = s.parallel;
  std::string key =
      fmt::format("gpus {} | model {} {} {} {} {} {} {} {} {} | ", s.gpus, m.layers, m.hidden,
                  m.heads, m.ffn, m.seq_len, m.vocab, static_cast<int>(m.dtype),
                  static_cast<int>(m.attention_flops), m.vocab_divisor);
  key += fmt::format("training {} {} {} {} {} | ", t.global_batch, t.micro_batch,
                     static_cast<int>(t.optimizer), static_cast<int>(t.mode), t.clip_grad);
  key += fmt::format("plan {} {} {} {} {} {} {} {} {} {} {} {} {} {} | ",
                     static_cast<int>(p.tensor.kind), p.tensor.size, p.tensor.depth,
                     static_cast<int>(p.tensor.grid_order), p.tensor.sequence_parallel,
                     p.tensor.comm_overlap, p.pipeline.size, static_cast<int>(p.pipeline.schedule),
                     p.pipeline.chunks, p.data.size, p.data.zero, p.data.overlap_grad_reduce,
                     p.data.overlap_param_gather, static_cast<int>(p.recompute));
  key += fmt::format("runtime {} | ", s.runtime.device_max_connections.value_or(0));
  key += fmt::format(
      "machine {} {} {} {} {} {} {} {} {} | max batch {}", h.name, h.gpu.memory.count(),
      h.node.gpus, static_cast<int>(h.node.fabric), h.node.gpu_bandwidth.bytes_per_second(),
      h.node.host_bridge_bandwidth ? h.node.host_bridge_bandwidth->bytes_per_second() : 0.0,
      h.network.nics_per_node, h.network.nic_bandwidth.bytes_per_second(),
      h.network.oversubscription, max_batch);
  return key;
}

std::optional<double> time_ratio(const std::optional<Time>& baseline,
                                 const std::optional<Time>& proposed) {
  if (!baseline || !proposed) return std::nullopt;
  return *baseline / *proposed;
}

std::string metric_name(TensorMetric m) {
  switch (m) {
    case TensorMetric::step:
      return "training step";
    case TensorMetric::inference:
      return "inference";
    case TensorMetric::forward_backward:
      return "forward + backward";
    case TensorMetric::max_batch:
      return "largest batch";
  }
  throw std::logic_error("unknown tensor metric");
}

// One micro batch per data-parallel replica, as the papers' runs (no gradient accumulation).
void one_micro_batch(Scenario& s) {
  s.training.micro_batch = s.training.global_batch / s.parallel.data.size;
}

// A change of every scenario of `experiment` (of every scenario when nullopt).
TensorChange scenarios(AxisValue value, std::optional<int> experiment,
                       std::function<void(Scenario&)> change) {
  return {std::move(value), [experiment, change = std::move(change)](TensorSetup& s) {
            s.for_each_scenario(experiment, change);
          }};
}

TensorChange machine(AxisValue value, std::function<void(hw::HardwareProfile&)> change) {
  return {std::move(value), [change = std::move(change)](TensorSetup& s) { change(s.hardware); }};
}

// The metric's ratio of `next` over `base`; nullopt where either lacks the figure.
std::optional<double> metric_ratio(TensorMetric metric, const reports::SchemeResult& base,
                                   const reports::SchemeResult& next) {
  switch (metric) {
    case TensorMetric::step:
      return time_ratio(base.step_time, next.step_time);
    case TensorMetric::inference:
      return time_ratio(base.inference_time, next.inference_time);
    case TensorMetric::forward_backward:
      return time_ratio(base.forward_backward_time, next.forward_backward_time);
    case TensorMetric::max_batch:
      if (base.max_batch && next.max_batch && base.max_batch->global_batch > 0) {
        return static_cast<double>(next.max_batch->global_batch) /
               static_cast<double>(base.max_batch->global_batch);
      }
      return std::nullopt;
  }
  throw std::logic_error("unknown tensor metric");
}

// Why `r` makes a setup infeasible for `metric`, or "" when it does not.
std::string infeasible(const reports::SchemeResult& r, TensorMetric metric) {
  if (r.problem) return fmt::format("{}: {}", r.name, *r.problem);
  if (metric != TensorMetric::max_batch && !r.fits) return fmt::format("{} over memory", r.name);
  if (metric == TensorMetric::max_batch && (!r.max_batch || r.max_batch->global_batch == 0)) {
    return fmt::format("{}: no batch fits", r.name);
  }
  return "";
}

}  // namespace

void TensorSetup::for_each_scenario(std::optional<int> experiment,
                                    const std::function<void(Scenario&)>& change) {
  const auto pair = [&](TensorPair& p) {
    if (experiment && *experiment != p.experiment) return;
    change(p.baseline);
    change(p.proposed);
  };
  pair(main);
  for (TensorConstraint& c : also)
    pair(c.pair);
}

reports::SchemeResult TensorRunCache::run(const Scenario& scenario,
                                          const hw::HardwareProfile& hardware, bool max_batch) {
  const std::string key = run_key(scenario, hardware, max_batch);
  {
    const std::lock_guard lock(mutex_);
    const auto it = results_.find(key);
    if (it != results_.end()) return it->second;
  }
  // Computed outside the lock: two threads may compute the same key; the results are equal
  // (the replay is deterministic), and the first stored is kept.
  const TensorParallel& t = scenario.parallel.tensor;
  const std::array<reports::TensorVariant, 1> variant{
      {{t.kind, t.kind == TensorKind::two_and_half_d ? std::optional(t.depth) : std::nullopt}}};
  reports::SchemeResult row =
      reports::compare_tensor_schemes(scenario, hardware, variant, {.max_batch = max_batch})
          .front();
  const std::lock_guard lock(mutex_);
  return results_.emplace(key, std::move(row)).first->second;
}

MapValue evaluate_tensor_setup(const TensorSetup& setup, TensorMetric metric,
                               TensorRunCache& cache) {
  const bool max_batch = metric == TensorMetric::max_batch;
  std::vector<std::string> notes;
  // The ratio of one pair, noting why the setup is infeasible for it.
  const auto ratio_of = [&](const TensorPair& pair) -> std::optional<double> {
    const reports::SchemeResult base = cache.run(pair.baseline, setup.hardware, max_batch);
    const reports::SchemeResult next = cache.run(pair.proposed, setup.hardware, max_batch);
    for (const reports::SchemeResult* r : {&base, &next}) {
      std::string why = infeasible(*r, metric);
      if (!why.empty() && std::find(notes.begin(), notes.end(), why) == notes.end()) {
        notes.push_back(std::move(why));
      }
    }
    return metric_ratio(metric, base, next);
  };
  MapValue v;
  const std::optional<double> ratio = ratio_of(setup.main);
  if (ratio) v.ratio = *ratio;
  if (!ratio && notes.empty()) notes.push_back(fmt::format("no {} figure", metric_name(metric)));
  for (const TensorConstraint& c : setup.also) {
    const std::size_t before = notes.size();
    const std::optional<double> other = ratio_of(c.pair);
    if (notes.size() == before &&
        (!other || std::fabs(*other - c.published) > c.tolerance * c.published)) {
      notes.push_back(fmt::format("{} {} outside {:g} ± {:.0f} %", c.name,
                                  other ? fmt::format("{:.3g}", *other) : "-", c.published,
                                  100.0 * c.tolerance));
    }
  }
  v.feasible = notes.empty();
  v.note = fmt::format("{}", fmt::join(notes, "; "));
  return v;
}

ClaimMapSpec tensor_claim_map(TensorClaim claim, std::shared_ptr<TensorRunCache> cache) {
  ClaimMapSpec spec;
  spec.id = claim.id;
  spec.paper = claim.paper;
  spec.claim = claim.claim;
  spec.source = claim.source;
  spec.published = claim.published;
  spec.tolerance = claim.tolerance;
  spec.grid_x = claim.grid_x;
  spec.grid_y = claim.grid_y;
  spec.infeasible_means = claim.stated.also.empty()
                              ? "a scheme cannot run or does not fit in memory"
                              : "a scheme cannot run or does not fit in memory, or another ratio "
                                "of the same runs or machine is outside its tolerance";
  for (const TensorAxis& a : claim.axes) {
    Axis axis{a.name, {}, a.paper, a.why};
    for (const TensorChange& c : a.values)
      axis.values.push_back(c.value);
    spec.axes.push_back(std::move(axis));
  }
  auto shared = std::make_shared<const TensorClaim>(std::move(claim));
  spec.evaluate = [shared, cache](const MapPoint& point) {
    TensorSetup setup = shared->stated;
    for (std::size_t a = 0; a < shared->axes.size(); ++a)
      shared->axes[a].values[point[a]].apply(setup);
    setup.for_each_scenario(std::nullopt, one_micro_batch);
    return evaluate_tensor_setup(setup, shared->metric, *cache);
  };
  return spec;
}

TensorChange hidden_change(std::int64_t hidden, bool plausible, std::optional<int> experiment) {
  return scenarios({fmt::format("{}", hidden), plausible}, experiment, [hidden](Scenario& s) {
    s.model.hidden = hidden;
    s.model.ffn = 4 * hidden;
  });
}

TensorChange batch_change(std::int64_t batch, bool plausible, std::optional<int> experiment) {
  return scenarios({fmt::format("{}", batch), plausible}, experiment,
                   [batch](Scenario& s) { s.training.global_batch = batch; });
}

TensorChange sequence_change(std::int64_t seq_len, bool plausible) {
  return scenarios({fmt::format("{}", seq_len), plausible}, std::nullopt,
                   [seq_len](Scenario& s) { s.model.seq_len = seq_len; });
}

TensorChange recompute_change(Recompute recompute, bool plausible) {
  return scenarios({std::string(to_string(recompute)), plausible}, std::nullopt,
                   [recompute](Scenario& s) { s.parallel.recompute = recompute; });
}

TensorChange grid_order_change(TensorKind kind, GridOrder order, bool plausible) {
  return scenarios({std::string(to_string(order)), plausible}, std::nullopt,
                   [kind, order](Scenario& s) {
                     if (s.parallel.tensor.kind == kind) s.parallel.tensor.grid_order = order;
                   });
}

TensorChange nics_change(std::int64_t nics, bool plausible) {
  return machine({fmt::format("{}", nics), plausible},
                 [nics](hw::HardwareProfile& h) { h.network.nics_per_node = nics; });
}

TensorChange nic_bandwidth_change(Bandwidth bandwidth, std::string label, bool plausible) {
  return machine({std::move(label), plausible},
                 [bandwidth](hw::HardwareProfile& h) { h.network.nic_bandwidth = bandwidth; });
}

TensorChange gpus_per_node_change(std::int64_t gpus, bool plausible) {
  return machine({fmt::format("{}", gpus), plausible},
                 [gpus](hw::HardwareProfile& h) { h.node.gpus = gpus; });
}

TensorChange host_bridge_change(Bandwidth bandwidth, std::string label, bool plausible) {
  return machine({std::move(label), plausible},
                 [bandwidth](hw::HardwareProfile& h) { h.node.host_bridge_bandwidth = bandwidth; });
}

TensorChange intra_node_change(Bandwidth bandwidth, std::string label, bool plausible) {
  return machine({std::move(label), plausible},
                 [bandwidth](hw::HardwareProfile& h) { h.node.gpu_bandwidth = bandwidth; });
}

TensorChange gpu_memory_change(Bytes memory, std::string label, bool plausible) {
  return machine({std::move(label), plausible},
                 [memory](hw::HardwareProfile& h) { h.gpu.memory = memory; });
}

TensorChange baseline_layout_change(std::int64_t tensor, std::int64_t gpus, bool plausible) {
  std::string label = tensor == gpus ? fmt::format("t {}", tensor)
                                     : fmt::format("t {} × DP {}", tensor, gpus / tensor);
  return scenarios({std::move(label), plausible}, std::nullopt, [tensor](Scenario& s) {
    ParallelPlan& p = s.parallel;
    if (p.tensor.kind != TensorKind::one_d) return;
    const std::int64_t all = p.gpus();
    if (all % (tensor * p.pipeline.size) != 0) {
      throw std::invalid_argument(
          fmt::format("baseline layout: t {} does not divide the baseline's {} GPUs", tensor, all));
    }
    p.data.size = all / (tensor * p.pipeline.size);
    p.tensor.size = tensor;
  });
}

}  // namespace trainsim::reproductions::claim_maps
