// ZeRO 2 and 3 with pipeline schedules on meta Programs, by exact op counts: the run rule of
// train_step.hpp (a unit is gathered once per run of one chunk's passes in one direction, a
// bucket reduce-scattered once per run of its chunk's backward passes), so that layered and
// breadth-first gather each layer twice and reduce each bucket once per step whatever m, while
// 1F1B does it per run (per pass in its steady state); layered holds at most two layers'
// gathered parameters; pipeline-parallel inference records forward passes only.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <variant>

#include "equivalence_asserts.hpp"
#include "models/build_program.hpp"
#include "models/pipeline_schedule.hpp"

using namespace trainsim;
using program::MemoryCategory;

namespace {

constexpr std::int64_t kData = 2;

ModelSpec small_model(std::int64_t layers) {
  return test::model_spec(layers, 64, 4, 256, 32, 128);
}

ParallelPlan plan_of(PipelineSchedule schedule, std::int64_t p, std::int64_t v, int zero) {
  ParallelPlan plan;
  plan.pipeline.size = p;
  plan.pipeline.schedule = schedule;
  plan.pipeline.chunks = v;
  plan.data.size = kData;
  plan.data.zero = zero;
  return plan;
}

TrainingSpec batches(std::int64_t micro_batches, RunMode mode = RunMode::training) {
  TrainingSpec t = test::training_spec(kData * micro_batches, 1);
  t.mode = mode;
  return t;
}

// What one recorded rank's Program gathers and reduces.
struct Traffic {
  std::map<std::string, std::int64_t> gathered;  ///< parameter -> times gathered (ZeRO 3)
  std::int64_t param_gathers = 0;                ///< dp.param.all_gather collectives
  std::int64_t reduce_scatters = 0;              ///< dp.grad.reduce_scatter collectives
  std::int64_t peak_gathered_layers = 0;         ///< layers with gathered parameters at once
};

Traffic traffic_of(const program::Program& prog, const program::RankProgram& r) {
  Traffic t;
  std::unordered_map<program::BufferId, std::string> layer_of;  // gathered layer parameters
  std::map<std::string, std::int64_t> live;                     // layer -> gathered buffers
  for (const program::Op& op : r.ops) {
    const std::string name(prog.names.name(op.name));
    if (const auto* a = std::get_if<program::Alloc>(&op.payload)) {
      // ZeRO 3 allocates a gathered parameter under its own name; gradient buckets ".grad".
      const bool parameter = name.starts_with("layers.") || name.starts_with("embedding.") ||
                             name.starts_with("final.");
      if (a->category != MemoryCategory::comm_buffers || !parameter || name.ends_with(".grad"))
        continue;
      ++t.gathered[name];
      if (name.starts_with("layers.")) {
        const std::string layer = name.substr(0, name.find('.', 7));
        layer_of[a->buffer] = layer;
        ++live[layer];
        t.peak_gathered_layers =
            std::max(t.peak_gathered_layers, static_cast<std::int64_t>(live.size()));
      }
    } else if (const auto* f = std::get_if<program::Free>(&op.payload)) {
      if (const auto it = layer_of.find(f->buffer); it != layer_of.end()) {
        if (--live[it->second] == 0) live.erase(it->second);
        layer_of.erase(it);
      }
    } else if (std::holds_alternative<program::Collective>(op.payload)) {
      if (name == "dp.param.all_gather") ++t.param_gathers;
      if (name == "dp.grad.reduce_scatter") ++t.reduce_scatters;
    }
  }
  return t;
}

// Runs (maximal sequences of consecutive compute passes of one chunk in one direction) of
// `chunk` among `stage`'s passes.
struct Runs {
  std::int64_t forward = 0;
  std::int64_t backward = 0;
};

Runs runs_of(const PipelineShape& shape, std::int64_t stage, std::int64_t chunk) {
  Runs runs;
  const std::vector<PipelineStep> passes = pipeline_passes(shape, stage);
  for (std::size_t i = 0; i < passes.size(); ++i) {
    if (passes[i].chunk != chunk) continue;
    if (i > 0 && passes[i - 1].chunk == chunk && passes[i - 1].kind == passes[i].kind) continue;
    ++(passes[i].kind == PipelineStep::Kind::forward ? runs.forward : runs.backward);
  }
  return runs;
}

std::string qkv(std::int64_t layer) {
  return "layers." + std::to_string(layer) + ".attn.qkv.weight";
}

}  // namespace

TEST_CASE("meta: ZeRO 3 gathers and reduces once per run of a chunk's passes, every schedule") {
  using S = PipelineSchedule;
  struct Case {
    S schedule;
    std::int64_t layers, p, v, m;
  };
  const Case cases[] = {{S::gpipe, 4, 2, 1, 4},         {S::one_f_one_b, 4, 2, 1, 6},
                        {S::one_f_one_b, 8, 4, 1, 5},   {S::interleaved, 8, 2, 2, 4},
                        {S::breadth_first, 8, 2, 2, 3}, {S::layered, 4, 2, 2, 5},
                        {S::layered, 8, 4, 2, 4}};
  for (const Case& c : cases) {
    CAPTURE(to_string(c.schedule));
    CAPTURE(c.m);
    const ModelSpec model = small_model(c.layers);
    const ParallelPlan plan = plan_of(c.schedule, c.p, c.v, 3);
    const program::Program prog =
        build_program(model, plan, batches(c.m), ProgramScope::representative);
    const PipelineShape shape{c.schedule, c.p, c.m, c.v};
    const std::int64_t per_chunk = c.layers / (c.p * c.v);
    REQUIRE(prog.ranks.size() == static_cast<std::size_t>(c.p));
    for (std::int64_t stage = 0; stage < c.p; ++stage) {
      CAPTURE(stage);
      const Traffic t = traffic_of(prog, prog.ranks[static_cast<std::size_t>(stage)]);
      std::int64_t gathers = 0;
      std::int64_t reductions = 0;
      for (std::int64_t layer = 0; layer < c.layers; ++layer) {
        const std::int64_t virtual_stage = layer / per_chunk;
        if (virtual_stage % c.p != stage) {
          CHECK(t.gathered.count(qkv(layer)) == 0);
          continue;
        }
        const Runs runs = runs_of(shape, stage, virtual_stage / c.p);
        CHECK(t.gathered.at(qkv(layer)) == runs.forward + runs.backward);
        gathers += runs.forward + runs.backward;
        reductions += runs.backward;
      }
      // The first and last stages: the tied word embedding in a unit of its own, the other
      // parameters outside the layers in another, both serving the embedding's or head's chunk.
      const Runs ends = runs_of(shape, stage, stage == 0 ? 0 : c.v - 1);
      if (stage == 0 || stage == c.p - 1) {
        CHECK(t.gathered.at("embedding.word") == ends.forward + ends.backward);
        gathers += 2 * (ends.forward + ends.backward);
        reductions += 2 * ends.backward;
      } else {
        CHECK(t.gathered.count("embedding.word") == 0);
      }
      CHECK(t.param_gathers == gathers);
      CHECK(t.reduce_scatters == reductions);
    }
  }
}

TEST_CASE(
    "meta: layered and breadth-first ZeRO 3 gather each layer twice per step, 1F1B per pass") {
  using S = PipelineSchedule;
  for (const std::int64_t m : {2, 4, 7}) {
    CAPTURE(m);
    // Layered (one layer per chunk) and breadth-first (two): fwd + bwd gather, one
    // reduce-scatter per unit, whatever m (§7.5, §7.6: ≈ 3Ψ per step).
    for (const auto& [schedule, layers] :
         {std::pair{S::layered, 4}, std::pair{S::breadth_first, 8}}) {
      CAPTURE(to_string(schedule));
      const program::Program prog = build_program(small_model(layers), plan_of(schedule, 2, 2, 3),
                                                  batches(m), ProgramScope::representative);
      for (const program::RankProgram& r : prog.ranks) {
        const Traffic t = traffic_of(prog, r);
        const std::int64_t units = layers / 2 + 2;  // the stage's layers, embedding, the rest
        for (const auto& [name, times] : t.gathered) {
          CAPTURE(name);
          CHECK(times == 2);
        }
        CHECK(t.param_gathers == 2 * units);
        CHECK(t.reduce_scatters == units);
      }
    }
    // 1F1B, one stage of two: a forward and a backward run per micro batch but for the
    // warm-up and cool-down, so about 2m gathers and m reduce-scatters per unit.
    const program::Program prog = build_program(small_model(4), plan_of(S::one_f_one_b, 2, 1, 3),
                                                batches(m), ProgramScope::representative);
    const Traffic first = traffic_of(prog, prog.ranks[0]);
    const Traffic last = traffic_of(prog, prog.ranks[1]);
    // The last stage alternates F, B per micro batch: every pass is a run.
    CHECK(last.gathered.at(qkv(3)) == 2 * m);
    CHECK(last.reduce_scatters == 4 * m);  // 2 layers, embedding, final LayerNorm
    // The first stage runs F F first and B B last: one run fewer each way.
    CHECK(first.gathered.at(qkv(0)) == 2 * (m - 1));
    CHECK(first.reduce_scatters == 4 * (m - 1));
  }
}

TEST_CASE("meta: ZeRO 2 with layered reduce-scatters each bucket once per step, 1F1B per run") {
  using S = PipelineSchedule;
  for (const std::int64_t m : {2, 5}) {
    CAPTURE(m);
    const auto reductions = [&](S schedule, std::int64_t p, std::int64_t v, int zero) {
      const program::Program prog = build_program(small_model(4), plan_of(schedule, p, v, zero),
                                                  batches(m), ProgramScope::representative);
      std::vector<std::int64_t> out;
      for (const program::RankProgram& r : prog.ranks)
        out.push_back(traffic_of(prog, r).reduce_scatters);
      return out;
    };
    // ZeRO 1 reduce-scatters each bucket once per step (the same bucketing as ZeRO 2).
    for (const auto& [p, v] : {std::pair{2, 2}, std::pair{1, 4}}) {
      CAPTURE(p);
      const std::vector<std::int64_t> once = reductions(S::layered, p, v, 1);
      CHECK(reductions(S::layered, p, v, 2) == once);
      for (const std::int64_t n : once)
        CHECK(n >= 2);
    }
    // 1F1B on the last of two stages: every backward pass is a run of its own.
    const std::vector<std::int64_t> once = reductions(S::one_f_one_b, 2, 1, 1);
    CHECK(reductions(S::one_f_one_b, 2, 1, 2).back() == m * once.back());
  }
}

TEST_CASE("meta: layered ZeRO 3 holds one layer's gathered parameters plus a prefetch") {
  // Eight layers on one stage (LGA) and on each of two stages: never more than two layers
  // gathered at once, while 1F1B's forward prefetch holds two as well (the rule's memory).
  for (const std::int64_t p : {1, 2}) {
    CAPTURE(p);
    const program::Program prog =
        build_program(small_model(8), plan_of(PipelineSchedule::layered, p, 8 / p, 3), batches(4),
                      ProgramScope::representative);
    for (const program::RankProgram& r : prog.ranks) {
      const Traffic t = traffic_of(prog, r);
      CHECK(t.peak_gathered_layers == 2);
    }
  }
}

TEST_CASE("meta: pipeline-parallel inference records forward passes only") {
  using S = PipelineSchedule;
  const std::int64_t m = 4;
  for (const auto& [schedule, v] :
       {std::pair{S::gpipe, 1}, std::pair{S::one_f_one_b, 1}, std::pair{S::interleaved, 2},
        std::pair{S::breadth_first, 2}, std::pair{S::layered, 4}}) {
    CAPTURE(to_string(schedule));
    ParallelPlan plan = plan_of(schedule, 2, v, 0);
    plan.tensor.size = 2;
    const ModelSpec model = small_model(schedule == S::layered ? 8 : 4);
    const program::Program prog =
        build_program(model, plan, batches(m, RunMode::inference), ProgramScope::representative);
    REQUIRE(prog.ranks.size() == 2);
    for (const program::RankProgram& r : prog.ranks) {
      const bool first = r.rank == prog.ranks[0].rank;
      std::int64_t sends = 0;
      std::int64_t recvs = 0;
      for (const program::Op& op : r.ops) {
        CHECK(op.tag.phase == program::Phase::forward);
        if (const auto* c = std::get_if<program::Collective>(&op.payload)) {
          CHECK(prog.groups[static_cast<std::size_t>(c->group)].kind == program::GroupKind::tp);
        }
        sends += std::holds_alternative<program::Send>(op.payload) ? 1 : 0;
        recvs += std::holds_alternative<program::Recv>(op.payload) ? 1 : 0;
      }
      // One activation per micro batch and virtual stage boundary: 2v - 1 boundaries.
      const std::int64_t out = first ? v : v - 1;
      CHECK(sends == m * out);
      CHECK(recvs == m * (2 * v - 1 - out));
    }
  }
}
