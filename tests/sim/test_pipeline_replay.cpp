// Replays of the executor's pipeline Programs (parallelism-reference §7): with free
// communication and equal stages the bubble is (p-1)/m for GPipe and 1F1B, (p-1)/(v·m) for
// interleaved, breadth-first and layered; the micro batches whose activations a stage holds at
// its peak are m (GPipe, breadth-first, layered) and p - s (1F1B); the first stage's
// activations are Korthikanti's L layers' worth whatever p (§2.5), m·L/p for breadth-first
// and layered; layered reduces a layer's gradients during the backward of the earlier layers
// and, with ZeRO 3, exposes less DP communication than 1F1B; inference replays forward only;
// representative replay equals the full one.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>
#include <variant>

#include "models/build_program.hpp"
#include "models/pipeline_schedule.hpp"
#include "sim/replay.hpp"
#include "sim_fixtures.hpp"
#include "units/doctest_printers.hpp"

using namespace trainsim;
using program::MemoryCategory;

namespace {

// small_profile with communication that costs nothing: links of 10^9 GB/s, no latency.
hw::HardwareProfile free_communication() {
  hw::HardwareProfile hw = test::small_profile();
  hw.node.gpu_bandwidth = Bandwidth::gb_per_s(1e9);
  hw.node.latency = Time::zero();
  hw.network.nic_bandwidth = Bandwidth::gb_per_s(1e9);
  hw.network.latency = Time::zero();
  hw.collectives.base_latency = Time::zero();
  hw.collectives.intra_node_efficiency = hw::EfficiencyCurve::constant(1.0);
  hw.collectives.inter_node_efficiency = hw::EfficiencyCurve::constant(1.0);
  return hw;
}

// Equal stages: eight layers each; the embedding and the head (a vocabulary of 32 against a
// hidden size of 2048) cost about 0.1 % of a stage.
ModelSpec equal_stage_model(std::int64_t stages) {
  return ModelSpec{.layers = 8 * stages,
                   .hidden = 2048,
                   .heads = 16,
                   .ffn = 8192,
                   .seq_len = 1024,
                   .vocab = 32,
                   .vocab_divisor = 1};
}

// A model whose communication shows: `hidden` with 64-wide heads, seq_len 256.
ModelSpec small_model(std::int64_t hidden, std::int64_t layers) {
  ModelSpec model = equal_stage_model(2);
  model.hidden = hidden;
  model.heads = hidden / 64;
  model.ffn = 4 * hidden;
  model.seq_len = 256;
  model.layers = layers;
  return model;
}

ParallelPlan pipeline(std::int64_t p, PipelineSchedule schedule, std::int64_t tp = 1,
                      std::int64_t dp = 1) {
  ParallelPlan plan;
  plan.tensor.size = tp;
  plan.pipeline.size = p;
  plan.pipeline.schedule = schedule;
  plan.data.size = dp;
  return plan;
}

TrainingSpec batches(std::int64_t global, std::int64_t micro = 1) {
  TrainingSpec t;
  t.global_batch = global;
  t.micro_batch = micro;
  return t;
}

// The first stage's bubble over its compute (Megatron's bubble over the ideal time, §7.1) for
// a chunked schedule with free communication and `per_chunk` equal layers per chunk.
double chunked_bubble(PipelineSchedule schedule, std::int64_t p, std::int64_t v, std::int64_t m,
                      std::int64_t per_chunk) {
  ModelSpec model = equal_stage_model(p);
  model.layers = per_chunk * p * v;
  ParallelPlan plan = pipeline(p, schedule);
  plan.pipeline.chunks = v;
  const program::Program prog =
      build_program(model, plan, batches(m), ProgramScope::representative);
  const sim::SimulationResult r = sim::replay(prog, free_communication());
  REQUIRE(r.stuck.empty());
  const sim::TimeBreakdown& first = r.breakdown[0];
  return first.bubble / (first.compute + first.recompute);
}

// Largest number of micro batches with saved activations live at once (each buffer counted
// for the micro batch whose pass allocated it).
std::int64_t peak_micro_batches(const program::RankProgram& r) {
  std::unordered_map<program::BufferId, std::int32_t> owner;
  std::map<std::int32_t, std::int64_t> live;  // micro batch -> live activation buffers
  std::int64_t peak = 0;
  for (const program::Op& op : r.ops) {
    if (const auto* a = std::get_if<program::Alloc>(&op.payload)) {
      if (a->category != MemoryCategory::activations) continue;
      owner[a->buffer] = op.tag.micro_batch;
      ++live[op.tag.micro_batch];
      peak = std::max(peak, static_cast<std::int64_t>(live.size()));
    } else if (const auto* f = std::get_if<program::Free>(&op.payload)) {
      if (const auto it = owner.find(f->buffer); it != owner.end()) {
        if (--live[it->second] == 0) live.erase(it->second);
        owner.erase(it);
      }
    }
  }
  return peak;
}

// Live bytes of `category` just before the rank's first backward op: what the forward passes
// of the warm-up stored.
std::int64_t stored_before_backward(const program::RankProgram& r, MemoryCategory category) {
  std::unordered_map<program::BufferId, std::int64_t> size;
  std::int64_t live = 0;
  for (const program::Op& op : r.ops) {
    // The first backward computation (or its recomputed forward) ends the count: a receive of its
    // gradient may come earlier, tagged backward (Megatron's interleaved warm-up ends with a call
    // that also receives the first backward's gradient, before the steady state's first forward).
    const bool computes = std::holds_alternative<program::Gemm>(op.payload) ||
                          std::holds_alternative<program::Kernel>(op.payload);
    const bool backward =
        op.tag.phase == program::Phase::backward || op.tag.phase == program::Phase::recompute;
    if (computes && backward) break;
    if (const auto* a = std::get_if<program::Alloc>(&op.payload)) {
      // Only what forward passes store (not a gradient received ahead of its backward).
      if (a->category != category || op.tag.phase != program::Phase::forward) continue;
      size[a->buffer] = a->size.count();
      live += a->size.count();
    } else if (const auto* f = std::get_if<program::Free>(&op.payload)) {
      if (const auto it = size.find(f->buffer); it != size.end()) {
        live -= it->second;
        size.erase(it);
      }
    }
  }
  return live;
}

}  // namespace

TEST_CASE("pipeline replay: free communication and equal stages give a bubble of (p-1)/m") {
  const hw::HardwareProfile hw = free_communication();
  for (const PipelineSchedule schedule : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b}) {
    for (const auto& [p, m] : {std::pair<std::int64_t, std::int64_t>{2, 4}, {4, 8}, {4, 4}}) {
      CAPTURE(to_string(schedule));
      CAPTURE(p);
      CAPTURE(m);
      const program::Program prog = build_program(equal_stage_model(p), pipeline(p, schedule),
                                                  batches(m), ProgramScope::representative);
      const sim::SimulationResult r = sim::replay(prog, hw);
      REQUIRE(r.stuck.empty());
      // The first stage starts at once and finishes last: all its idle time waits on the
      // other stages (Megatron's bubble over the ideal time, §7.1).
      const sim::TimeBreakdown& first = r.breakdown[0];
      const double measured = first.bubble / (first.compute + first.recompute);
      const double expected = static_cast<double>(p - 1) / static_cast<double>(m);
      MESSAGE(to_string(schedule) << " p=" << p << " m=" << m << ": bubble " << measured
                                  << ", (p-1)/m = " << expected);
      // Within 0.4 %: the first stage's embedding (about 0.1 % of its time) makes it the
      // slowest stage, which shortens its own wait a little.
      CHECK(std::abs(measured / expected - 1.0) < 0.004);
      CHECK(measured <= expected);
    }
  }
  // With TP 2 and no SP each stage receives 1/t of the activation and all-gathers it over TP
  // (Megatron's scatter/gather): the wait for the receive behind that all-gather is bubble too.
  const program::Program prog =
      build_program(equal_stage_model(4), pipeline(4, PipelineSchedule::one_f_one_b, 2), batches(8),
                    ProgramScope::representative);
  const sim::SimulationResult r = sim::replay(prog, hw);
  REQUIRE(r.stuck.empty());
  const sim::TimeBreakdown& first = r.breakdown[0];
  const double measured = first.bubble / (first.compute + first.recompute);
  MESSAGE("1f1b p=4 m=8 t=2 (scatter/gather): bubble " << measured << ", (p-1)/m = 0.375");
  // The embedding's memory-bound kernels are not split by TP while the layers are: 0.7 %.
  CHECK(std::abs(measured / 0.375 - 1.0) < 0.007);
}

TEST_CASE("pipeline replay: interleaved 1F1B's bubble is (p-1)/(v·m)") {
  for (const auto& [p, v, m] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{2, 2, 4},
                                {4, 2, 8},
                                {4, 3, 8},
                                {2, 4, 2}}) {
    CAPTURE(p);
    CAPTURE(v);
    CAPTURE(m);
    // Eight layers per chunk, as equal_stage_model has per stage.
    const double measured = chunked_bubble(PipelineSchedule::interleaved, p, v, m, 8);
    const double expected = static_cast<double>(p - 1) / static_cast<double>(v * m);
    MESSAGE("interleaved p=" << p << " v=" << v << " m=" << m << ": bubble " << measured
                             << ", (p-1)/(vm) = " << expected);
    // Within 0.2 %: the embedding (first stage) and the head (last) are not free.
    CHECK(std::abs(measured / expected - 1.0) < 0.002);
  }
}

TEST_CASE("pipeline replay: breadth-first and layered bubbles are (p-1)/(v·m) = p(p-1)/(L·m)") {
  for (const auto& [schedule, p, v, m, per_chunk, tolerance] :
       {std::tuple<PipelineSchedule, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                   double>{PipelineSchedule::breadth_first, 2, 2, 4, 8, 0.004},
        {PipelineSchedule::breadth_first, 4, 2, 8, 8, 0.004},
        {PipelineSchedule::breadth_first, 4, 3, 4, 8, 0.004},
        {PipelineSchedule::layered, 2, 4, 4, 1, 0.03},
        {PipelineSchedule::layered, 4, 4, 8, 1, 0.03}}) {
    CAPTURE(to_string(schedule));
    CAPTURE(p);
    CAPTURE(v);
    CAPTURE(m);
    // Breadth-first: eight layers per chunk; layered: one (the modular pipeline, L = p·v).
    const double measured = chunked_bubble(schedule, p, v, m, per_chunk);
    const double expected = static_cast<double>(p - 1) / static_cast<double>(v * m);
    MESSAGE(to_string(schedule) << " p=" << p << " v=" << v << " m=" << m << ": bubble " << measured
                                << ", (p-1)/(vm) = " << expected);
    // Above the formula by the head (final LayerNorm, logits, loss): the last stage runs it in
    // every micro batch of its last chunk before the backward turns around, so the first stage
    // waits those m heads out too (1F1B and interleaved spread them over the steady state).
    // Measured: 0.07-0.3 % with eight-layer chunks, 1.7-2.7 % with one-layer chunks.
    CHECK(measured >= expected);
    CHECK(std::abs(measured / expected - 1.0) < tolerance);
  }
  // m < p stalls every loop (§7.7: p = 4, v = 2, m = 2 gives 1.25 instead of 0.75).
  const double stalled = chunked_bubble(PipelineSchedule::breadth_first, 4, 2, 2, 8);
  MESSAGE("breadth-first p=4 v=2 m=2: bubble " << stalled << ", §7.7's stalled 1.25");
  CHECK(std::abs(stalled / 1.25 - 1.0) < 0.004);
}

TEST_CASE("pipeline replay: layered starts a layer's DP reduction long before the backward ends") {
  // §7.6, §8.3: each layer is a chunk whose buckets reduce right after its m backward passes,
  // while the backward of the earlier layers (of all micro batches) still runs, with or
  // without a pipeline. 1F1B reduces during the last micro batch's backward only.
  const hw::HardwareProfile hw = test::small_profile();
  const ModelSpec model = small_model(512, 8);
  // The share of the first stage's backward (first to last backward kernel) still to run when
  // its first DP reduction starts.
  const auto share_after_first_reduction = [&](PipelineSchedule schedule, std::int64_t p,
                                               std::int64_t v) {
    CAPTURE(to_string(schedule));
    CAPTURE(p);
    ParallelPlan plan = pipeline(p, schedule, 1, 2);
    plan.pipeline.chunks = v;
    plan.data.overlap_grad_reduce = true;
    const program::Program prog =
        build_program(model, plan, batches(8), ProgramScope::representative);
    const sim::SimulationResult r = sim::replay(prog, hw);
    REQUIRE(r.stuck.empty());
    const program::RankProgram& rank = prog.ranks[0];
    Time reduction = Time::max();
    Time backward_start = Time::max();
    Time backward_end = Time::zero();
    std::int64_t reductions = 0;
    for (std::size_t i = 0; i < rank.ops.size(); ++i) {
      const program::Op& op = rank.ops[i];
      const sim::OpTiming& t = r.timelines[0].ops[i];
      if (const auto* c = std::get_if<program::Collective>(&op.payload)) {
        if (prog.groups[static_cast<std::size_t>(c->group)].kind == program::GroupKind::dp) {
          reduction = std::min(reduction, t.start);
          ++reductions;
        }
      }
      const bool compute = std::holds_alternative<program::Gemm>(op.payload) ||
                           std::holds_alternative<program::Kernel>(op.payload);
      if (compute && op.stream == program::Stream::compute &&
          op.tag.phase == program::Phase::backward) {
        backward_start = std::min(backward_start, t.start);
        backward_end = std::max(backward_end, t.end);
      }
    }
    CHECK(reductions > 0);
    CHECK(reduction <= backward_end);
    const double share = (backward_end - reduction) / (backward_end - backward_start);
    MESSAGE(to_string(schedule) << " p=" << p << " v=" << v << ": first DP reduction with " << share
                                << " of the stage's backward still to run");
    return share;
  };
  // Layered, p = 2: stage 0 holds layers 0, 2, 4, 6; layer 6's reduction starts before the
  // backward of layers 4, 2, 0 (three quarters of the stage's backward) has run.
  CHECK(share_after_first_reduction(PipelineSchedule::layered, 2, 4) > 0.7);
  // One stage (LGA without a pipeline): layer 7's reduction starts with 7/8 to run.
  CHECK(share_after_first_reduction(PipelineSchedule::layered, 1, 8) > 0.8);
  // Breadth-first (§7.5), two chunks of two layers: chunk 1's reduction overlaps chunk 0's
  // backward, half the stage's.
  CHECK(share_after_first_reduction(PipelineSchedule::breadth_first, 2, 2) > 0.45);
  // 1F1B, and plain gradient accumulation on one stage: in the last micro batch (here one
  // bucket holds the stage, so at the end).
  CHECK(share_after_first_reduction(PipelineSchedule::one_f_one_b, 2, 1) < 0.2);
  CHECK(share_after_first_reduction(PipelineSchedule::one_f_one_b, 1, 1) < 0.2);
}

TEST_CASE("pipeline replay: micro batches in flight per stage, m (GPipe) and p - s (1F1B)") {
  const std::int64_t p = 4;
  const std::int64_t m = 6;
  const ModelSpec model = equal_stage_model(p);
  for (const PipelineSchedule schedule : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b}) {
    const program::Program prog =
        build_program(model, pipeline(p, schedule), batches(m), ProgramScope::representative);
    for (std::int64_t s = 0; s < p; ++s) {
      CAPTURE(to_string(schedule));
      CAPTURE(s);
      const std::int64_t expected = schedule == PipelineSchedule::gpipe ? m : p - s;
      CHECK(peak_micro_batches(prog.ranks[static_cast<std::size_t>(s)]) == expected);
    }
  }
  // Breadth-first and layered (§7.5, §7.6): every micro batch is alive on every stage.
  for (const PipelineSchedule schedule :
       {PipelineSchedule::breadth_first, PipelineSchedule::layered}) {
    ModelSpec looped = model;
    looped.layers = 2 * p;
    ParallelPlan plan = pipeline(p, schedule);
    plan.pipeline.chunks = 2;
    const program::Program prog =
        build_program(looped, plan, batches(m), ProgramScope::representative);
    for (std::int64_t s = 0; s < p; ++s) {
      CAPTURE(to_string(schedule));
      CAPTURE(s);
      CHECK(peak_micro_batches(prog.ranks[static_cast<std::size_t>(s)]) == m);
    }
  }
}

TEST_CASE("pipeline replay: the first stage holds L layers' worth whatever p (Korthikanti §2.5)") {
  // SP + selective recomputation: 34·s·b·h/t bytes per layer (§2.4) and, per micro batch in
  // flight, the embedding dropout mask s·b·h/t and the int64 token ids 8·s·b. 1F1B's first
  // stage holds p micro batches of L/p layers when its first backward starts.
  const std::int64_t t = 2;
  const std::int64_t layers = 8;
  ModelSpec model = equal_stage_model(4);
  model.layers = layers;
  const double sb = 1024.0;
  const double sbh = sb * 2048.0;
  for (const std::int64_t p : {2, 4, 8}) {
    ParallelPlan plan = pipeline(p, PipelineSchedule::one_f_one_b, t);
    plan.tensor.sequence_parallel = true;
    plan.recompute = Recompute::selective;
    const program::Program prog =
        build_program(model, plan, batches(2 * p), ProgramScope::representative);
    const auto stored =
        static_cast<double>(stored_before_backward(prog.ranks[0], MemoryCategory::activations));
    const double korthikanti = 34.0 * sbh * static_cast<double>(layers) / t +
                               static_cast<double>(p) * (sbh / t + 8.0 * sb);
    // The executor also keeps the two LayerNorms' fp32 mean and 1/σ per token (16·s·b/t per
    // layer), which Korthikanti's count leaves out (0.02 %).
    const double statistics = 16.0 * sb / t * static_cast<double>(layers);
    // The newest forward's output went with the receive of the first gradient (Megatron's
    // send_forward_recv_backward, which the backward waits for) and is freed before it.
    MESSAGE("p=" << p << ": first stage stores " << stored << " B, Korthikanti " << korthikanti
                 << " B + LayerNorm statistics " << statistics << " B");
    CHECK(stored == korthikanti + statistics);
  }
}

TEST_CASE("pipeline replay: interleaved first stage holds L(1 + (p-1)/(pv)) layers' worth") {
  // §2.5: rank 0 has 2(p-1) + (v-1)p + 1 chunk-micro-batches of L/(pv) layers in flight when
  // its first backward starts; the embedding's extras come with the chunk-0 ones among them.
  const std::int64_t t = 2;
  const double sb = 1024.0;
  const double sbh = sb * 2048.0;
  for (const auto& [p, v] : {std::pair<std::int64_t, std::int64_t>{2, 2}, {4, 2}, {4, 3}}) {
    CAPTURE(p);
    CAPTURE(v);
    ModelSpec model = equal_stage_model(p);
    model.layers = p * v * 2;
    const auto layers = static_cast<double>(model.layers);
    ParallelPlan plan = pipeline(p, PipelineSchedule::interleaved, t);
    plan.pipeline.chunks = v;
    plan.tensor.sequence_parallel = true;
    plan.recompute = Recompute::selective;
    const std::int64_t m = 2 * p;
    const program::Program prog =
        build_program(model, plan, batches(m), ProgramScope::representative);
    const auto stored =
        static_cast<double>(stored_before_backward(prog.ranks[0], MemoryCategory::activations));
    // Chunk-0 forwards before the first backward.
    double embedded = 0.0;
    for (const PipelineStep& s : pipeline_passes({PipelineSchedule::interleaved, p, m, v}, 0)) {
      if (s.kind == PipelineStep::Kind::backward) break;
      if (s.chunk == 0) embedded += 1.0;
    }
    const double factor = 1.0 + static_cast<double>(p - 1) / static_cast<double>(p * v);
    const double layer_bytes = 34.0 * sbh / t + 16.0 * sb / t;  // + LayerNorm statistics
    // Megatron's steady state sends the newest forward's output only after the backward
    // (send_forward_backward_recv_forward_backward): it is still held, 2·s·b·h/t.
    const double in_transit = 2.0 * sbh / t;
    const double expected =
        layer_bytes * layers * factor + embedded * (sbh / t + 8.0 * sb) + in_transit;
    MESSAGE("interleaved p=" << p << " v=" << v << ": first stage stores " << stored
                             << " B, L(1 + (p-1)/(pv)) layers + extras " << expected << " B");
    CHECK(stored == expected);
  }
}

TEST_CASE("pipeline replay: breadth-first and layered first stage holds m·L/p layers' worth") {
  // §7.5, §7.6: all m·v chunk-micro-batches of L/(pv) layers are stored at the
  // forward-backward switch (GPipe-like), with the embedding's extras for the m chunk-0 ones.
  // Selective recomputation: 34·s·b·h/t per layer (+ LayerNorm statistics); full: the layer
  // input checkpoint 2·s·b·h/t (SP) per layer.
  const std::int64_t t = 2;
  const double sb = 1024.0;
  const double sbh = sb * 2048.0;
  for (const auto& [schedule, p, v, recompute] :
       {std::tuple<PipelineSchedule, std::int64_t, std::int64_t, Recompute>{
            PipelineSchedule::breadth_first, 2, 2, Recompute::selective},
        {PipelineSchedule::breadth_first, 4, 2, Recompute::selective},
        {PipelineSchedule::layered, 2, 3, Recompute::selective},
        {PipelineSchedule::layered, 4, 2, Recompute::full},
        {PipelineSchedule::layered, 1, 4, Recompute::full}}) {
    CAPTURE(to_string(schedule));
    CAPTURE(p);
    CAPTURE(v);
    ModelSpec model = equal_stage_model(p);
    model.layers = p * v * (schedule == PipelineSchedule::layered ? 1 : 2);
    ParallelPlan plan = pipeline(p, schedule, t);
    plan.pipeline.chunks = v;
    plan.tensor.sequence_parallel = true;
    plan.recompute = recompute;
    const std::int64_t m = p + 1;
    const program::Program prog =
        build_program(model, plan, batches(m), ProgramScope::representative);
    const auto stored =
        static_cast<double>(stored_before_backward(prog.ranks[0], MemoryCategory::activations));
    const double layer_bytes =
        recompute == Recompute::full ? 2.0 * sbh / t : 34.0 * sbh / t + 16.0 * sb / t;
    const double layers_worth =
        static_cast<double>(m) * static_cast<double>(model.layers) / static_cast<double>(p);
    // One stage (LGA without a pipeline) also holds the head of every micro batch: the
    // all-gathered final LayerNorm output (the logits' input) 2·s·b·h, the fp32 logits
    // 4·s·b·V/t, the labels 8·s·b and the LayerNorm statistics 8·s·b/t.
    const double head = p == 1 ? 2.0 * sbh + 4.0 * sb * static_cast<double>(model.vocab) / t +
                                     8.0 * sb + 8.0 * sb / t
                               : 0.0;
    const double expected =
        layer_bytes * layers_worth + static_cast<double>(m) * (sbh / t + 8.0 * sb + head);
    MESSAGE(to_string(schedule) << " p=" << p << " v=" << v << " m=" << m << " "
                                << to_string(recompute) << ": first stage stores " << stored
                                << " B, m·L/p layers + extras " << expected << " B");
    CHECK(stored == expected);
  }
}

TEST_CASE("pipeline replay: representative replay equals --full (TP 2 x PP 2 x DP 2)") {
  const hw::HardwareProfile hw = test::small_profile();
  const ModelSpec model = small_model(256, 4);
  for (const PipelineSchedule schedule :
       {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b, PipelineSchedule::interleaved,
        PipelineSchedule::breadth_first, PipelineSchedule::layered}) {
    CAPTURE(to_string(schedule));
    for (const int zero : {1, 3}) {
      CAPTURE(zero);
      ParallelPlan plan = pipeline(2, schedule, 2, 2);
      if (schedule != PipelineSchedule::gpipe && schedule != PipelineSchedule::one_f_one_b)
        plan.pipeline.chunks = 2;
      plan.data.zero = zero;
      const sim::SimulationResult rep =
          sim::replay(build_program(model, plan, batches(8), ProgramScope::representative), hw);
      const sim::SimulationResult full =
          sim::replay(build_program(model, plan, batches(8), ProgramScope::every_rank), hw);
      REQUIRE(rep.stuck.empty());
      REQUIRE(full.stuck.empty());
      CHECK(rep.iteration_time == full.iteration_time);
      CHECK(rep.breakdown[1].bubble == full.breakdown[4].bubble);
    }
  }
}

TEST_CASE("pipeline replay: layered ZeRO 3 exposes less DP communication than 1F1B ZeRO 3") {
  // §7.6, §8.2: layered gathers each layer once per direction and reduce-scatters it once per
  // step, overlapped with the other layers' runs; 1F1B re-gathers and reduces per pass.
  const hw::HardwareProfile hw = test::small_profile();
  const ModelSpec model = small_model(512, 8);
  const auto exposed_dp = [&](PipelineSchedule schedule, std::int64_t v) {
    CAPTURE(to_string(schedule));
    ParallelPlan plan = pipeline(2, schedule, 1, 2);
    plan.pipeline.chunks = v;
    plan.data.zero = 3;
    const sim::SimulationResult r =
        sim::replay(build_program(model, plan, batches(16), ProgramScope::representative), hw);
    REQUIRE(r.stuck.empty());
    Time exposed = Time::zero();
    for (const sim::TimeBreakdown& b : r.breakdown)
      exposed += b.exposed_comm[static_cast<std::size_t>(program::GroupKind::dp)];
    MESSAGE(to_string(schedule) << " + ZeRO 3: exposed DP " << exposed.ms() << " ms, step "
                                << r.iteration_time.ms() << " ms");
    return exposed;
  };
  const Time layered = exposed_dp(PipelineSchedule::layered, 4);
  const Time one_f_one_b = exposed_dp(PipelineSchedule::one_f_one_b, 1);
  CHECK(one_f_one_b > Time::zero());
  CHECK(layered < one_f_one_b);
}

TEST_CASE("pipeline replay: pipeline-parallel inference runs every schedule, forward only") {
  const hw::HardwareProfile hw = test::small_profile();
  for (const PipelineSchedule schedule :
       {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b, PipelineSchedule::interleaved,
        PipelineSchedule::breadth_first, PipelineSchedule::layered}) {
    CAPTURE(to_string(schedule));
    ParallelPlan plan = pipeline(2, schedule, 2, 2);
    const bool chunked =
        schedule != PipelineSchedule::gpipe && schedule != PipelineSchedule::one_f_one_b;
    plan.pipeline.chunks = chunked ? 2 : 1;
    TrainingSpec training = batches(8);
    training.mode = RunMode::inference;
    const sim::SimulationResult r = sim::replay(
        build_program(small_model(256, 4), plan, training, ProgramScope::representative), hw);
    REQUIRE(r.stuck.empty());
    CHECK(r.iteration_time > Time::zero());
    for (const sim::TimeBreakdown& b : r.breakdown) {
      CHECK(b.compute > Time::zero());
      CHECK(b.recompute == Time::zero());
      CHECK(b.optimizer == Time::zero());
      CHECK(b.exposed_comm[static_cast<std::size_t>(program::GroupKind::dp)] == Time::zero());
    }
  }
}

TEST_CASE("pipeline replay: 2D q=2 x PP 4 bubble is (p-1)/m with free communication") {
  // Each grid device sends its [s·b/q, h/q] block to the same cell of the next stage. Even with
  // free links a grid stage has exposed TP time (its compute stream waiting on the row and
  // column streams, measured 4.3 % of the compute), part of every stage's time per micro batch
  // as the compute is: Megatron's ideal time, over which the bubble is (p-1)/m, is their sum.
  const hw::HardwareProfile hw = free_communication();
  ParallelPlan plan = pipeline(4, PipelineSchedule::one_f_one_b, 4);
  plan.tensor.kind = TensorKind::two_d;
  plan.tensor.grid_order = default_grid_order(TensorKind::two_d);
  for (const std::int64_t m : {4, 8}) {
    CAPTURE(m);
    const program::Program prog =
        build_program(equal_stage_model(4), plan, batches(2 * m, 2), ProgramScope::representative);
    REQUIRE(prog.ranks.size() == 16);  // the grid of each stage
    const sim::SimulationResult r = sim::replay(prog, hw);
    REQUIRE(r.stuck.empty());
    const sim::TimeBreakdown& first = r.breakdown[0];
    const Time grid = first.exposed_comm[static_cast<std::size_t>(program::GroupKind::tp)];
    const double measured = first.bubble / (first.compute + first.recompute + grid);
    const double expected = 3.0 / static_cast<double>(m);
    MESSAGE("2d q=2 1f1b p=4 m=" << m << ": bubble " << measured << ", (p-1)/m = " << expected
                                 << " (exposed grid time " << grid / first.compute
                                 << " of the compute)");
    // Within 0.5 %: as with 1D, the first stage's embedding makes it the slowest stage.
    CHECK(std::abs(measured / expected - 1.0) < 0.005);
    CHECK(grid / first.compute < 0.05);
  }
}

TEST_CASE("pipeline replay: representative replay equals --full (2D, 2.5D, 3D x PP 2 x DP 2)") {
  const hw::HardwareProfile hw = test::small_profile();
  struct Case {
    TensorKind kind;
    std::int64_t size;
    std::int64_t depth;
    PipelineSchedule schedule;
    std::int64_t micro;
  };
  for (const Case c : {Case{TensorKind::two_d, 4, 1, PipelineSchedule::one_f_one_b, 2},
                       Case{TensorKind::two_d, 4, 1, PipelineSchedule::interleaved, 2},
                       Case{TensorKind::two_and_half_d, 8, 2, PipelineSchedule::gpipe, 4},
                       Case{TensorKind::three_d, 8, 1, PipelineSchedule::one_f_one_b, 4}}) {
    CAPTURE(to_string(c.kind));
    CAPTURE(to_string(c.schedule));
    ParallelPlan plan = pipeline(2, c.schedule, c.size, 2);
    plan.tensor.kind = c.kind;
    plan.tensor.depth = c.depth;
    plan.tensor.grid_order = default_grid_order(c.kind);
    if (c.schedule == PipelineSchedule::interleaved) plan.pipeline.chunks = 2;
    plan.data.zero = 1;
    const ModelSpec model = small_model(256, 4);
    const program::Program rep_prog =
        build_program(model, plan, batches(8 * c.micro, c.micro), ProgramScope::representative);
    const sim::SimulationResult rep = sim::replay(rep_prog, hw);
    const sim::SimulationResult full = sim::replay(
        build_program(model, plan, batches(8 * c.micro, c.micro), ProgramScope::every_rank), hw);
    REQUIRE(rep.stuck.empty());
    REQUIRE(full.stuck.empty());
    CHECK(rep_prog.ranks.size() < static_cast<std::size_t>(plan.gpus()));
    CHECK(rep.iteration_time == full.iteration_time);
    for (std::size_t i = 0; i < rep_prog.ranks.size(); ++i) {
      CAPTURE(rep_prog.ranks[i].rank);
      CHECK(rep.breakdown[i].bubble ==
            full.breakdown[static_cast<std::size_t>(rep_prog.ranks[i].rank)].bubble);
    }
  }
}
