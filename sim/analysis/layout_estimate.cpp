#include "sim/analysis/layout_estimate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "models/build_program.hpp"
#include "models/dtype.hpp"
#include "sim/replay.hpp"

namespace trainsim::sim {
namespace {

struct ReducedRun {
  double time_s = 0;
  double peak = 0;
  double activations = 0;  ///< at the peak of the GPU with the largest peak
};

ReducedRun run_reduced(const ModelSpec& model, const Layout& reduced, std::int64_t layers,
                       std::int64_t micro_batches, const hw::HardwareProfile& hardware) {
  const program::Program program = reduced_program(model, reduced, layers, micro_batches);
  ReplayOptions options;
  options.record_op_timings = false;
  const SimulationResult result = replay(program, hardware, options);
  ReducedRun run;
  run.time_s = result.iteration_time.seconds();
  const auto top =
      std::max_element(result.memory.begin(), result.memory.end(),
                       [](const RankMemory& x, const RankMemory& y) { return x.peak < y.peak; });
  if (top != result.memory.end()) {
    run.peak = top->peak.as_double();
    run.activations =
        top->at_peak[static_cast<std::size_t>(program::MemoryCategory::activations)].as_double();
  }
  return run;
}

/// Micro-batch-layer activation units stage 0 holds at its peak, in layers of one micro batch.
double layers_in_flight(const ParallelPlan& plan, std::int64_t micro_batches,
                        std::int64_t stage_layers) {
  const auto p = plan.pipeline.size;
  const auto v = plan.pipeline.chunks;
  const auto m = micro_batches;
  const auto L = static_cast<double>(stage_layers);
  switch (plan.pipeline.schedule) {
    case PipelineSchedule::one_f_one_b:
      return static_cast<double>(std::min(p, m)) * L;
    case PipelineSchedule::gpipe:
    case PipelineSchedule::breadth_first:
    case PipelineSchedule::layered:
      return static_cast<double>(m) * L;
    case PipelineSchedule::interleaved:
      return static_cast<double>(std::min(m * v, 2 * (p - 1) + (v - 1) * p + 1)) * L /
             static_cast<double>(v);
  }
  return static_cast<double>(m) * L;
}

/// The bubble in micro-batch times (§7): p − 1 for gpipe and 1f1b, (p − 1)/v for the chunked
/// schedules; breadth-first and layered loop over the chunks, and with fewer micro batches
/// than stages (m < p) every loop drains, so they pay p − 1 like 1f1b.
double bubble_micro_batches(const PipelineParallel& pp, std::int64_t micro_batches) {
  const double gap = static_cast<double>(pp.size - 1);
  if (pp.schedule == PipelineSchedule::gpipe || pp.schedule == PipelineSchedule::one_f_one_b) {
    return gap;
  }
  const bool loops = pp.schedule != PipelineSchedule::interleaved;
  if (loops && micro_batches < pp.size) return gap;
  return gap / static_cast<double>(pp.chunks);
}

}  // namespace

program::Program reduced_program(const ModelSpec& model, const Layout& reduced, std::int64_t layers,
                                 std::int64_t micro_batches) {
  ModelSpec m = model;
  m.layers = layers;
  ParallelPlan plan = reduced.plan;
  if (plan.pipeline.schedule == PipelineSchedule::layered) plan.pipeline.chunks = layers;
  const TrainingSpec training =
      training_of(reduced, reduced.micro_batch * plan.data.size * micro_batches);
  return build_program(m, plan, training, ProgramScope::representative);
}

Bilinear Bilinear::fit(double f11, double f12, double f21, double f22) {
  Bilinear f;
  f.e = f22 - f21 - f12 + f11;
  f.c = (f12 - f11) - f.e;
  f.b = (f21 - f11) - f.e;
  f.a = f11 - f.b - f.c - f.e;
  return f;
}

Layout reduced_layout(const Layout& layout) {
  Layout r = layout;
  const bool layered_alone =
      layout.plan.pipeline.size == 1 && layout.plan.pipeline.schedule == PipelineSchedule::layered;
  r.plan.pipeline =
      layered_alone ? PipelineParallel{1, PipelineSchedule::layered, 1} : PipelineParallel{};
  return r;
}

std::string reduced_key(const Layout& layout) {
  return describe(reduced_layout(layout));
}

Layout compute_layout(const Layout& layout) {
  Layout r = reduced_layout(layout);
  // The fewest data ranks the expert groups need (e divides t·c·d): the all-to-all stays in
  // the floor's replays, as it does in every layout of this tensor block.
  const std::int64_t tc = layout.plan.tensor.size * layout.plan.context.size;
  r.plan.data.size = layout.plan.expert.size / std::gcd(layout.plan.expert.size, tc);
  r.plan.data.zero = 0;
  return r;
}

std::int64_t largest_stage(const ModelSpec& model, const ParallelPlan& plan) {
  // Even stages are all the largest: no walk over them, which every floor and estimate of the
  // search would pay.
  if (!plan.pipeline.uneven()) return 0;
  std::int64_t largest = 0;
  for (std::int64_t s = 1; s < plan.pipeline.size; ++s) {
    if (plan.pipeline.stage_layers(model.layers, s) >
        plan.pipeline.stage_layers(model.layers, largest))
      largest = s;
  }
  return largest;
}

std::int64_t largest_stage_layers(const ModelSpec& model, const ParallelPlan& plan) {
  return plan.pipeline.stage_layers(model.layers, largest_stage(model, plan));
}

StageParameters stage_parameters(const ModelSpec& model, const Layout& layout, std::int64_t stage) {
  const ParallelPlan& p = layout.plan;
  const std::int64_t stage_layers = p.pipeline.stage_layers(model.layers, stage);
  StageParameters out;
  if (!model.moe) {
    out.dense =
        static_cast<double>(model.parameters_per_layer()) * static_cast<double>(stage_layers);
    return out;
  }
  // The MoE layers this stage holds: its chunks of L / (p·v) layers, p chunks apart (the
  // Transformer's layer tags), the rest dense; a MoE layer's attention, norms, router and
  // shared experts split over TP, its routed experts over EP.
  const MoeSpec& moe = *model.moe;
  const std::int64_t chunks = p.pipeline.chunks;
  const std::int64_t chunk_layers = stage_layers / chunks;
  std::int64_t moe_layers = 0;
  // Uneven stages have one chunk, starting after the stages before it.
  const std::int64_t first = p.pipeline.uneven() ? p.pipeline.stage_first_layer(model.layers, stage)
                                                 : stage * chunk_layers;
  for (std::int64_t c = 0; c < chunks; ++c) {
    for (std::int64_t i = 0; i < chunk_layers; ++i) {
      if (model.moe_layer(first + c * p.pipeline.size * chunk_layers + i)) ++moe_layers;
    }
  }
  const std::int64_t h = model.hidden;
  const std::int64_t mlp =
      h * model.fc1_width() + model.ffn * h + (model.bias ? model.fc1_width() + h : 0);
  const auto dense_layer = static_cast<double>(model.parameters_per_layer());
  const auto moe_layer =
      static_cast<double>(model.parameters_per_layer() - mlp + moe.dense_parameters(h));
  out.dense = dense_layer * static_cast<double>(stage_layers - moe_layers) +
              moe_layer * static_cast<double>(moe_layers);
  out.experts = static_cast<double>(moe.expert_parameters(h)) * static_cast<double>(moe_layers) /
                static_cast<double>(p.expert.size);
  out.expert_data = static_cast<double>(p.tensor.size * p.context.size * p.data.size) /
                    static_cast<double>(p.expert.size);
  return out;
}

Bytes model_state_floor(const ModelSpec& model, const Layout& layout) {
  const ParallelPlan& p = layout.plan;
  // ZeRO shards over the gradient group: DP x CP; the experts' state over their
  // expert-data group (ZeRO 0 or 1 with experts).
  const double d = static_cast<double>(p.data.size * p.context.size);
  const double weights = 2.0 / (p.data.zero >= 3 ? d : 1.0);  // bf16
  const double grads = 4.0 / (p.data.zero >= 2 ? d : 1.0);    // fp32
  const double adam = 12.0 / (p.data.zero >= 1 ? d : 1.0);    // fp32 master, m, v
  const auto floor_of = [&](const StageParameters& params) {
    const double expert_adam = 12.0 / (p.data.zero >= 1 ? params.expert_data : 1.0);
    return Bytes::rounded(params.dense / static_cast<double>(p.tensor.size) *
                              (weights + grads + adam) +
                          params.experts * (2.0 + 4.0 + expert_adam));
  };
  // The stage that holds the most: pruning compares with the largest peak over the GPUs, and
  // with experts or uneven stages the stages differ (a dense layer can outweigh a MoE layer
  // per GPU, or the reverse). Otherwise every stage holds the same.
  Bytes most = floor_of(stage_parameters(model, layout, 0));
  if (model.moe || p.pipeline.uneven()) {
    for (std::int64_t s = 1; s < p.pipeline.size; ++s)
      most = std::max(most, floor_of(stage_parameters(model, layout, s)));
  }
  return most;
}

ReducedFit::ReducedFit(const ModelSpec& model, const Layout& reduced,
                       const hw::HardwareProfile& hardware) {
  std::array<ReducedRun, 4> runs;  // (l, m) = (1,1), (1,2), (2,1), (2,2)
  for (std::size_t i = 0; i < runs.size(); ++i) {
    runs[i] = run_reduced(model, reduced, 1 + static_cast<std::int64_t>(i / 2),
                          1 + static_cast<std::int64_t>(i % 2), hardware);
  }
  const auto fit = [&](auto field) {
    return Bilinear::fit(field(runs[0]), field(runs[1]), field(runs[2]), field(runs[3]));
  };
  time_s_ = fit([](const ReducedRun& r) { return r.time_s; });
  // One stage-boundary transfer: a micro batch's boundary activation (or its gradient),
  // split over the tensor block (Megatron's scatter/gather, SP, or the grid's own blocks).
  // Stage s holds GPUs [s·t·d, (s+1)·t·d): a block of a node or more sends across nodes,
  // where every GPU of the node sends at once through the node's NICs.
  const ParallelPlan& plan = reduced.plan;
  const double bytes =
      static_cast<double>(reduced.micro_batch * (model.seq_len / plan.context.size) * model.hidden *
                          bytes_per_element(model.dtype)) /
      static_cast<double>(plan.tensor.size);
  const bool across = plan.tensor.size * plan.context.size * plan.data.size >= hardware.node.gpus;
  const double per_gpu = across ? hardware.network.nic_bandwidth.bytes_per_second() *
                                      static_cast<double>(hardware.network.nics_per_node) /
                                      static_cast<double>(hardware.node.gpus)
                                : hardware.node.gpu_bandwidth.bytes_per_second();
  transfer_s_ =
      bytes / per_gpu + (across ? hardware.network.latency : hardware.node.latency).seconds();
  peak_bytes_ = fit([](const ReducedRun& r) { return r.peak; });
  activation_bytes_per_layer_ = std::max(0.0, runs[2].activations - runs[0].activations);
}

LayoutEstimate ReducedFit::estimate(const ModelSpec& model, const Layout& layout,
                                    std::int64_t global_batch) const {
  const ParallelPlan& plan = layout.plan;
  const std::int64_t m = global_batch / (layout.micro_batch * plan.data.size);
  const std::int64_t stage_layers = largest_stage_layers(model, plan);
  const auto L = static_cast<double>(stage_layers);
  const auto mm = static_cast<double>(m);
  LayoutEstimate out;
  if (plan.pipeline.size == 1) {
    out.iteration = Time::from_seconds(std::max(0.0, time_s_.at(L, mm)));
    out.peak = Bytes::rounded(std::max(0.0, peak_bytes_.at(L, mm)));
    return out;
  }
  const double per_micro_batch = time_s_.c + time_s_.e * L;
  const double bubble = bubble_s(plan, m, L);
  // Megatron's p2p calls block: each pass of the critical stage waits for its transfer, a
  // forward and a backward one per micro batch and chunk, plus the p − 1 of the ramp.
  const double transfers = 2.0 *
                           (mm * static_cast<double>(plan.pipeline.chunks) +
                            static_cast<double>(plan.pipeline.size - 1)) *
                           transfer_s_;
  out.iteration = Time::from_seconds(
      std::max(0.0, time_s_.a + time_s_.b * L + mm * per_micro_batch + bubble + transfers));
  out.bubble = Time::from_seconds(std::max(0.0, bubble));
  const double extra_layers = layers_in_flight(plan, m, stage_layers) - L;
  out.peak = Bytes::rounded(
      std::max(0.0, peak_bytes_.at(L, 1.0) + extra_layers * activation_bytes_per_layer_));
  return out;
}

double ReducedFit::bubble_s(const ParallelPlan& plan, std::int64_t micro_batches,
                            double stage_layers) const {
  if (plan.pipeline.size == 1) return 0.0;
  // The bubble is the other stages' layers (§7); the embedding and head run once per micro
  // batch on their own stage, already in the m micro-batch times of the slowest stage.
  return bubble_micro_batches(plan.pipeline, micro_batches) * time_s_.e * stage_layers;
}

LayoutEstimate ReducedFit::compute_floor(const ModelSpec& model, const Layout& layout,
                                         std::int64_t global_batch) const {
  const ParallelPlan& plan = layout.plan;
  const std::int64_t micro_batches = global_batch / (layout.micro_batch * plan.data.size);
  const auto m = static_cast<double>(micro_batches);
  const auto L = static_cast<double>(largest_stage_layers(model, plan));
  // ZeRO shards over the gradient group: DP x CP.
  const double d = static_cast<double>(plan.data.size * plan.context.size);
  const double once = (time_s_.a + time_s_.b * L) / (plan.data.zero >= 1 ? d : 1.0);
  LayoutEstimate out;
  out.bubble = Time::from_seconds(std::max(0.0, bubble_s(plan, micro_batches, L)));
  out.iteration = Time::from_seconds(
      std::max(0.0, once + m * (time_s_.c + time_s_.e * L) + bubble_s(plan, micro_batches, L)));
  // What ZeRO shards away, per parameter: Adam's 12 bytes, then the fp32 gradient's 4, then
  // the bf16 weight's 2, each kept 1/d; the experts' Adam state over the expert-data group
  // (the compute layout kept none of it sharded).
  // The stage the peak was extrapolated to: the largest (with uneven stages a middle one).
  const StageParameters stage = stage_parameters(model, layout, largest_stage(model, plan));
  const double params = (stage.dense + static_cast<double>(model.embedding_parameters())) /
                        static_cast<double>(plan.tensor.size);
  const int z = plan.data.zero;
  const double sharded = (z >= 1 ? 12.0 : 0.0) + (z >= 2 ? 4.0 : 0.0) + (z >= 3 ? 2.0 : 0.0);
  const double experts_sharded =
      z >= 1 ? stage.experts * 12.0 * (1.0 - 1.0 / stage.expert_data) : 0.0;
  const LayoutEstimate at_d1 = estimate(model, layout, global_batch);
  out.peak = Bytes::rounded(
      std::max(0.0, at_d1.peak.as_double() - params * sharded * (1.0 - 1.0 / d) - experts_sharded));
  return out;
}

}  // namespace trainsim::sim
