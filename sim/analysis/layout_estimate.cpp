#include "sim/analysis/layout_estimate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <numeric>

#include "models/build_program.hpp"
#include "models/dtype.hpp"
#include "sim/replay.hpp"
#include "sim/replay_world.hpp"

namespace trainsim::sim {
namespace {

struct ReducedRun {
  double time_s = 0;
  double busy_s = 0;  ///< the busiest GPU's compute stream (its kernels, back to back)
  RunMemory memory;   ///< the largest over the GPUs
};

/// One reduced run on `world`, which the layout's four runs share.
ReducedRun run_reduced(const program::Program& program, ReplayWorld& world) {
  ReplayOptions options;
  options.record_op_timings = false;
  options.record_memory_timeline = true;
  const SimulationResult result = replay(program, world, options);
  ReducedRun run;
  run.time_s = result.iteration_time.seconds();
  for (const TimeBreakdown& b : result.breakdown)
    run.busy_s = std::max(run.busy_s, (b.compute + b.recompute + b.optimizer).seconds());
  constexpr auto comm = static_cast<std::size_t>(program::MemoryCategory::comm_buffers);
  constexpr auto activations = static_cast<std::size_t>(program::MemoryCategory::activations);
  std::int64_t held = 0;
  for (const RankMemory& memory : result.memory) {
    run.memory.peak = std::max(run.memory.peak, memory.peak.as_double());
    for (const MemoryPoint& point : memory.timeline) {
      std::int64_t outside = 0;
      for (std::size_t c = 0; c < point.live.size(); ++c)
        outside += c == comm ? 0 : point.live[c].count();
      if (outside > held) {
        held = outside;
        run.memory.activations = point.live[activations].as_double();
      }
    }
  }
  run.memory.held = static_cast<double>(held);
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

/// The same for the last stage: one micro batch's layers (1F1B: its backward follows its
/// forward), Megatron's warm-up (v − 1)p + 1 chunk passes (interleaved), every micro batch's.
double last_layers_in_flight(const ParallelPlan& plan, std::int64_t micro_batches,
                             std::int64_t stage_layers) {
  const auto p = plan.pipeline.size;
  const auto v = plan.pipeline.chunks;
  const auto L = static_cast<double>(stage_layers);
  switch (plan.pipeline.schedule) {
    case PipelineSchedule::one_f_one_b:
      return L;
    case PipelineSchedule::interleaved:
      return static_cast<double>(std::min(micro_batches * v, (v - 1) * p + 1)) * L /
             static_cast<double>(v);
    case PipelineSchedule::gpipe:
    case PipelineSchedule::breadth_first:
    case PipelineSchedule::layered:
      break;
  }
  return static_cast<double>(micro_batches) * L;
}

/// 1F1B and interleaved alternate a stage's forward and backward passes in their steady
/// state (each micro batch's last chunk runs backward right after its forward); gpipe,
/// breadth-first and layered run every micro batch through a chunk before turning back.
bool alternates(const PipelineParallel& pp) {
  return pp.schedule == PipelineSchedule::one_f_one_b ||
         pp.schedule == PipelineSchedule::interleaved;
}

/// Micro batches whose head activations the last stage holds at once.
std::int64_t head_micro_batches_in_flight(const PipelineParallel& pp, std::int64_t micro_batches) {
  return alternates(pp) ? 1 : micro_batches;
}

/// What the output head saves for its backward per micro batch (models/layers/
/// output_head.cpp): the fp32 softmax of the logits, b·(s/c)·V/t (each grid kind splits the
/// tokens and the vocabulary over t between them), the final norm's input and output.
double head_activation_bytes(const ModelSpec& model, const Layout& layout) {
  const TensorParallel& tp = layout.plan.tensor;
  const double t = static_cast<double>(tp.size);
  const double tokens = static_cast<double>(layout.micro_batch * model.seq_len) /
                        static_cast<double>(layout.plan.context.size);
  const double softmax =
      tokens * static_cast<double>(model.padded_vocab(tp.vocab_shards())) * 4.0 / t;
  const bool split = tp.sequence_parallel || tp.kind != TensorKind::one_d;
  const double norm = 2.0 * tokens * static_cast<double>(model.hidden) *
                      static_cast<double>(bytes_per_element(model.dtype)) / (split ? t : 1.0);
  return softmax + norm;
}

/// bf16 weights, fp32 gradients and Adam's 12 bytes per parameter, each sharded over the
/// gradient group (DP × CP) from the ZeRO stage that shards it.
double state_bytes_per_parameter(const ParallelPlan& p) {
  const double d = static_cast<double>(p.data.size * p.context.size);
  return 2.0 / (p.data.zero >= 3 ? d : 1.0) + 4.0 / (p.data.zero >= 2 ? d : 1.0) +
         12.0 / (p.data.zero >= 1 ? d : 1.0);
}

/// One vocabulary matrix's parameters on a GPU (its vocabulary shards over the tensor block).
double vocab_parameters(const ModelSpec& model, const ParallelPlan& p) {
  return static_cast<double>(model.padded_vocab(p.tensor.vocab_shards()) * model.hidden) /
         static_cast<double>(p.tensor.size);
}

/// One vocabulary matrix's state on a GPU when the output layer has its own (untied): the
/// reduced run holds it and the embedding, a pipeline's end stages one each.
double vocab_state_bytes(const ModelSpec& model, const Layout& layout) {
  if (model.tied_embeddings) return 0.0;
  return vocab_parameters(model, layout.plan) * state_bytes_per_parameter(layout.plan);
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
                                 std::int64_t micro_batches, std::int64_t gpus_per_node,
                                 ProgramScope scope) {
  ModelSpec m = model;
  m.layers = layers;
  ParallelPlan plan = reduced.plan;
  if (plan.pipeline.schedule == PipelineSchedule::layered) plan.pipeline.chunks = layers;
  const TrainingSpec training =
      training_of(reduced, reduced.micro_batch * plan.data.size * micro_batches);
  return build_program(m, plan, training, scope, gpus_per_node);
}

Bilinear Bilinear::fit(double f11, double f12, double f21, double f22) {
  Bilinear f;
  f.e = f22 - f21 - f12 + f11;
  f.c = (f12 - f11) - f.e;
  f.b = (f21 - f11) - f.e;
  f.a = f11 - f.b - f.c - f.e;
  return f;
}

Time iteration_floor(const ParallelPlan& plan, std::int64_t micro_batches, double stage_layers,
                     double once, double per_micro_batch, double per_layer) {
  // ZeRO shards over the gradient group: DP x CP.
  const double d = static_cast<double>(plan.data.size * plan.context.size);
  const double bubble =
      plan.pipeline.size == 1
          ? 0.0
          : bubble_micro_batches(plan.pipeline, micro_batches) * per_layer * stage_layers;
  return Time::from_seconds(std::max(0.0, once / (plan.data.zero >= 1 ? d : 1.0) +
                                              static_cast<double>(micro_batches) * per_micro_batch +
                                              bubble));
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

/// ZeRO 2 and 3 in a pipeline (models/train_step.cpp's StepHooks): a run of passes of one
/// chunk in one direction — gpipe's, breadth-first's and layered's m, 1F1B's warm-up and
/// cool-down, interleaved's groups of p; any m >= 2 — keeps the chunk's gradients unreduced at
/// full size (fp32) until its last pass and, ZeRO 3, its gathered weights (bf16) until then:
/// buffers that grow with the chunk, which the one-stage reduced runs never show.
RunBuffers run_buffers(const ModelSpec& model, const Layout& layout, std::int64_t micro_batches) {
  const ParallelPlan& p = layout.plan;
  if (p.data.zero < 2 || micro_batches < 2) return {};
  const StageParameters stage = stage_parameters(model, layout, largest_stage(model, p));
  const double chunk = (stage.dense / static_cast<double>(p.tensor.size) + stage.experts) /
                           static_cast<double>(p.pipeline.chunks) +
                       vocab_parameters(model, p);
  RunBuffers out;
  out.gradients = 4.0 * chunk;
  out.weights = p.data.zero >= 3 ? 2.0 * chunk : 0.0;
  return out;
}

std::int64_t data_parallel_rounds(const PipelineParallel& pp, std::int64_t micro_batches) {
  return alternates(pp) ? micro_batches : 1;
}

Bytes model_state_floor(const ModelSpec& model, const Layout& layout) {
  const ParallelPlan& p = layout.plan;
  // ZeRO shards over the gradient group: DP x CP; the experts' state over their
  // expert-data group (ZeRO 0 or 1 with experts).
  const double per_parameter = state_bytes_per_parameter(p);
  const auto floor_of = [&](const StageParameters& params) {
    const double expert_adam = 12.0 / (p.data.zero >= 1 ? params.expert_data : 1.0);
    return Bytes::rounded(params.dense / static_cast<double>(p.tensor.size) * per_parameter +
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
                       const hw::HardwareProfile& hardware, ProgramShelf* shelf) {
  std::shared_ptr<const ReducedPrograms> shelved;
  if (shelf != nullptr) shelved = shelf->take(describe(reduced));
  std::unique_ptr<ReplayWorld> world;  // the four Programs' world and groups: built once
  std::array<ReducedRun, 4> runs;      // (l, m) = (1,1), (1,2), (2,1), (2,2)
  for (std::size_t i = 0; i < runs.size(); ++i) {
    // Not shelved: built one at a time, so that a large tensor block's four are never all held.
    program::Program built;
    if (!shelved) {
      built = reduced_program(model, reduced, 1 + static_cast<std::int64_t>(i / 2),
                              1 + static_cast<std::int64_t>(i % 2), hardware.node.gpus);
    }
    const program::Program& program = shelved ? (*shelved)[i] : built;
    if (!world)
      world =
          std::make_unique<ReplayWorld>(hardware, std::max<std::int32_t>(1, program.world_size));
    runs[i] = run_reduced(program, *world);
  }
  const auto fit = [&](auto field) {
    return Bilinear::fit(field(runs[0]), field(runs[1]), field(runs[2]), field(runs[3]));
  };
  time_s_ = fit([](const ReducedRun& r) { return r.time_s; });
  busy_s_ = fit([](const ReducedRun& r) { return r.busy_s; });
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
  memory_ =
      MemoryFit(model, reduced, {runs[0].memory, runs[1].memory, runs[2].memory, runs[3].memory});
}

MemoryFit::MemoryFit(const ModelSpec& model, const Layout& reduced,
                     const std::array<RunMemory, 4>& runs) {
  // What is held outside communication buffers grows with the layers and micro batches in
  // flight and fits like the time; the buffers do not (double-buffered buckets, one-ahead
  // gathers: a bounded count, sized per bucket, not per layer), so what the peak adds to that
  // in the two-layer runs is added at full depth.
  held_bytes_ = Bilinear::fit(runs[0].held, runs[1].held, runs[2].held, runs[3].held);
  comm_bytes_ = std::max(runs[2].peak - runs[2].held, runs[3].peak - runs[3].held);
  activation_bytes_per_layer_ = std::max(0.0, runs[2].activations - runs[0].activations);
  head_activation_bytes_ = head_activation_bytes(model, reduced);
  activations_one_micro_batch_ = runs[0].activations;
  vocab_state_bytes_ = vocab_state_bytes(model, reduced);
}

Bytes MemoryFit::peak(const ModelSpec& model, const Layout& layout,
                      std::int64_t micro_batches) const {
  const ParallelPlan& plan = layout.plan;
  const std::int64_t stage_layers = largest_stage_layers(model, plan);
  if (plan.pipeline.size == 1) {
    return Bytes::rounded(std::max(0.0, held_bytes_.at(static_cast<double>(stage_layers),
                                                       static_cast<double>(micro_batches))) +
                          comm_bytes_);
  }
  return Bytes::rounded(
      pipeline_peak(plan, micro_batches, stage_layers, run_buffers(model, layout, micro_batches)));
}

LayoutEstimate ReducedFit::estimate(const ModelSpec& model, const Layout& layout,
                                    std::int64_t global_batch, const ReducedFit* compute) const {
  const ParallelPlan& plan = layout.plan;
  const std::int64_t m = replica_micro_batches(layout, global_batch);
  const std::int64_t stage_layers = largest_stage_layers(model, plan);
  const auto L = static_cast<double>(stage_layers);
  const auto mm = static_cast<double>(m);
  LayoutEstimate out;
  out.peak = memory_.peak(model, layout, m);
  if (plan.pipeline.size == 1) {
    out.iteration = Time::from_seconds(std::max({0.0, time_s_.at(L, mm), busy_s_.at(L, mm)}));
    return out;
  }
  double per_micro_batch = per_micro_batch_s(L);
  // ZeRO 2 and 3 reduce-scatter (and gather) a chunk once per run of its passes (run_buffers);
  // the reduced run, plain accumulation, does it every micro batch: what its micro batch
  // takes beyond the compute alone's is charged per run.
  double once = 0.0;
  if (compute && plan.data.zero >= 2) {
    const double data_parallel = std::max(0.0, per_micro_batch - compute->per_micro_batch_s(L));
    per_micro_batch -= data_parallel;
    once = static_cast<double>(data_parallel_rounds(plan.pipeline, m)) * data_parallel;
  }
  const double bubble = bubble_s(plan, m, L);
  // Megatron's p2p calls block: each pass of the critical stage waits for its transfer, a
  // forward and a backward one per micro batch and chunk, plus the p − 1 of the ramp.
  const double transfers = 2.0 *
                           (mm * static_cast<double>(plan.pipeline.chunks) +
                            static_cast<double>(plan.pipeline.size - 1)) *
                           transfer_s_;
  out.iteration = Time::from_seconds(
      std::max(0.0, once_s(L) + mm * per_micro_batch + once + bubble + transfers));
  out.bubble = Time::from_seconds(std::max(0.0, bubble));
  return out;
}

// Where the reduced runs' communication overlaps more with two layers or micro batches than
// with one, the time's fit bends below its kernels' (e < 0: a 0 s estimate of a layered ZeRO 3
// layout at 126 layers and 16 micro batches, replayed in 50 s), which no GPU beats: the
// compute stream's busy time, a sum of kernels, fits exactly.
double ReducedFit::per_micro_batch_s(double layers) const {
  return std::max(time_s_.c + time_s_.e * layers, busy_s_.c + busy_s_.e * layers);
}

double ReducedFit::once_s(double layers) const {
  return std::max(time_s_.a + time_s_.b * layers, busy_s_.a + busy_s_.b * layers);
}

double MemoryFit::pipeline_peak(const ParallelPlan& plan, std::int64_t micro_batches,
                                std::int64_t stage_layers, const RunBuffers& run) const {
  // The reduced run is one stage holding the embedding and the head; a pipeline splits them:
  // the first stage holds the embedding and the most layers in flight, the last the output
  // layer and the head's activations (the logits) of every micro batch it has run forward
  // but not yet backward. Each holds one vocabulary matrix where the run held two (untied).
  const auto L = static_cast<double>(stage_layers);
  const double A = activation_bytes_per_layer_;
  const double stage = std::max(0.0, held_bytes_.at(L, 1.0)) + comm_bytes_ - vocab_state_bytes_;
  const double first = stage - head_activation_bytes_ +
                       (layers_in_flight(plan, micro_batches, stage_layers) - L) * A;
  const double last_micro_batches =
      static_cast<double>(head_micro_batches_in_flight(plan.pipeline, micro_batches));
  const double last = stage + (last_micro_batches - 1.0) * head_activation_bytes_ +
                      (last_layers_in_flight(plan, micro_batches, stage_layers) - L) * A;
  // ZeRO 2 and 3: the end of a backward run holds the chunk's gradients (and gathered
  // weights) at full size, its activations freed. (ZeRO 3's weights held through a forward
  // run beside its activations are left out: added there, the estimate overshot the replays of
  // Llama 3 8B's ZeRO 3 pipelines by up to 34 %, without, the worst is 25 % under.)
  const double activations = activations_one_micro_batch_ + (L - 1.0) * A;
  const double run_end = std::max(0.0, held_bytes_.at(L, 1.0)) - activations - vocab_state_bytes_ +
                         run.gradients + run.weights;
  return std::max({0.0, first, last, run_end});
}

double ReducedFit::bubble_s(const ParallelPlan& plan, std::int64_t micro_batches,
                            double stage_layers) const {
  if (plan.pipeline.size == 1) return 0.0;
  // The bubble is the other stages' layers (§7); the embedding and head run once per micro
  // batch on their own stage, already in the m micro-batch times of the slowest stage.
  return bubble_micro_batches(plan.pipeline, micro_batches) * std::max(time_s_.e, busy_s_.e) *
         stage_layers;
}

LayoutEstimate ReducedFit::compute_floor(const ModelSpec& model, const Layout& layout,
                                         std::int64_t global_batch) const {
  const ParallelPlan& plan = layout.plan;
  const std::int64_t micro_batches = replica_micro_batches(layout, global_batch);
  const auto L = static_cast<double>(largest_stage_layers(model, plan));
  LayoutEstimate out;
  out.bubble = Time::from_seconds(std::max(0.0, bubble_s(plan, micro_batches, L)));
  out.iteration = iteration_floor(plan, micro_batches, L, once_s(L), per_micro_batch_s(L),
                                  std::max(time_s_.e, busy_s_.e));
  out.peak = memory_.sharded_floor(model, layout, global_batch);
  return out;
}

Bytes MemoryFit::sharded_floor(const ModelSpec& model, const Layout& layout,
                               std::int64_t global_batch) const {
  const ParallelPlan& plan = layout.plan;
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
  const Bytes at_d1 = peak(model, layout, replica_micro_batches(layout, global_batch));
  // ZeRO shards over the gradient group: DP x CP.
  const double d = static_cast<double>(plan.data.size * plan.context.size);
  return Bytes::rounded(
      std::max(0.0, at_d1.as_double() - params * sharded * (1.0 - 1.0 / d) - experts_sharded));
}

}  // namespace trainsim::sim
