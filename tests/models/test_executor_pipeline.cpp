// Pipeline parallelism in the executor: every schedule on the cpu backend equals one device in
// fp64 (with 1D TP, SP, DP, ZeRO 0 to 3 and recomputation; inference: the loss), and the meta
// Programs' transfers: one send per stage boundary and micro batch each way, Megatron's
// scatter/gather across TP, sent outputs freed, and the tied word embedding's gradient summed over
// the embedding group.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <variant>

#include "equivalence_asserts.hpp"
#include "models/build_program.hpp"
#include "models/equivalence_check.hpp"
#include "models/errors.hpp"

using namespace trainsim;

namespace {

struct PipelineCase {
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  std::int64_t pp = 2;
  std::int64_t tp = 1;
  bool sp = false;
  std::int64_t dp = 1;
  int zero = 0;
  Recompute recompute = Recompute::none;
  std::int64_t micro_batches = 2;  ///< per replica
  std::int64_t chunks = 1;
  bool overlap_param_gather = false;
};

void check_pipeline_case(std::mt19937_64& rng, const PipelineCase& c,
                         RunMode mode = RunMode::training) {
  const auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  ModelSpec m;
  m.heads = 2 * pick(1, 2);
  m.hidden = m.heads * pick(2, 3);
  m.ffn = 2 * m.hidden;
  m.layers = c.pp * c.chunks * pick(1, 2);
  if (c.schedule == PipelineSchedule::layered) m.layers = c.pp * c.chunks;  // a layer per chunk
  m.seq_len = c.tp * pick(2, 4);
  m.vocab = c.tp * pick(3, 6);
  m.vocab_divisor = 1;
  TrainingSpec training;
  training.micro_batch = pick(1, 2);
  training.global_batch = training.micro_batch * c.dp * c.micro_batches;
  training.mode = mode;
  ParallelPlan plan;
  plan.tensor.size = c.tp;
  plan.tensor.sequence_parallel = c.sp;
  plan.pipeline.size = c.pp;
  plan.pipeline.schedule = c.schedule;
  plan.pipeline.chunks = c.chunks;
  plan.data.size = c.dp;
  plan.data.zero = c.zero;
  plan.data.overlap_grad_reduce = pick(0, 1) == 0;
  plan.data.overlap_param_gather = c.overlap_param_gather;
  plan.recompute = c.recompute;
  CAPTURE(to_string(c.schedule));
  CAPTURE(c.pp);
  CAPTURE(c.tp);
  CAPTURE(c.sp);
  CAPTURE(c.dp);
  CAPTURE(c.zero);
  CAPTURE(c.micro_batches);
  CAPTURE(c.chunks);
  CAPTURE(plan.data.overlap_grad_reduce);
  CAPTURE(plan.data.overlap_param_gather);
  if (mode == RunMode::inference) {
    // The loss is all there is to compare (only the last stage computes it).
    const EquivalenceReport r = check_against_single_device(m, plan, training, rng());
    CAPTURE(r.loss_error);
    CHECK(r.loss_single > 0.0);
    CHECK(r.parameters.empty());
    CHECK(r.loss_error < 1e-12);
    CHECK(r.passed);
    return;
  }
  const EquivalenceReport r = test::check_random_model(m, plan, training, rng());
  MESSAGE(to_string(c.schedule) << " p=" << c.pp << " t=" << c.tp << std::string(c.sp ? " sp" : "")
                                << " v=" << c.chunks << " d=" << c.dp << " zero=" << c.zero
                                << " m=" << c.micro_batches << ": loss error " << r.loss_error
                                << ", gradient error " << r.max_gradient_error << ", value error "
                                << r.max_value_error);
}

ModelSpec small_model(std::int64_t layers) {
  return test::model_spec(layers, 64, 4, 256, 32, 128);
}

ParallelPlan pipeline_plan(std::int64_t tp, std::int64_t pp, std::int64_t dp,
                           PipelineSchedule schedule = PipelineSchedule::one_f_one_b) {
  ParallelPlan plan;
  plan.tensor.size = tp;
  plan.pipeline.size = pp;
  plan.pipeline.schedule = schedule;
  plan.data.size = dp;
  return plan;
}

}  // namespace

TEST_CASE("cpu: GPipe and 1F1B x p {2,4} x TP 2 x SP x DP 2 equal one device in fp64") {
  std::mt19937_64 rng(20261121);
  using S = PipelineSchedule;
  const PipelineCase cases[] = {
      {S::gpipe, 2, 1, false, 1, 0, Recompute::none, 3},
      {S::one_f_one_b, 2, 1, false, 1, 0, Recompute::none, 4},
      {S::one_f_one_b, 4, 1, false, 1, 0, Recompute::selective, 4},
      {S::gpipe, 4, 1, false, 1, 0, Recompute::full, 5},
      {S::one_f_one_b, 2, 2, false, 1, 0, Recompute::none, 2},  // scatter/gather
      {S::gpipe, 2, 2, true, 1, 0, Recompute::none, 3},         // sequence parallel
      {S::one_f_one_b, 2, 1, false, 2, 0, Recompute::none, 3},  // DP all-reduce
      {S::one_f_one_b, 2, 2, true, 2, 1, Recompute::none, 2},   // TP x SP x DP x ZeRO 1
      {S::gpipe, 2, 2, false, 2, 1, Recompute::full, 2},
      {S::one_f_one_b, 4, 2, true, 1, 0, Recompute::none, 4},
      {S::one_f_one_b, 4, 1, false, 2, 1, Recompute::none, 6},
  };
  for (const PipelineCase& c : cases)
    check_pipeline_case(rng, c);
}

TEST_CASE("cpu: uneven stages (first and last lighter) x GPipe, 1F1B x TP 2 x SP x DP 2 equal one device") {
  // Megatron's --decoder-first/last-pipeline-num-layers: the stated stages hold fewer layers,
  // the others share the rest; the embedding and the head stay on the first and last stage.
  struct Uneven {
    PipelineSchedule schedule;
    std::int64_t pp, layers;
    std::optional<std::int64_t> first, last;
    std::int64_t tp, dp;
    int zero;
    Recompute recompute;
  };
  using S = PipelineSchedule;
  const Uneven cases[] = {
      {S::one_f_one_b, 3, 6, 1, 2, 1, 1, 0, Recompute::none},      // 1 + 3 + 2
      {S::gpipe, 3, 7, 1, std::nullopt, 2, 1, 0, Recompute::none},  // 1 + 3 + 3
      {S::one_f_one_b, 4, 8, std::nullopt, 1, 2, 2, 1, Recompute::selective},  // 7 for 3: error
      {S::one_f_one_b, 2, 5, 2, std::nullopt, 2, 2, 3, Recompute::full},       // 2 + 3
  };
  std::mt19937_64 rng(20261126);
  for (const Uneven& u : cases) {
    ModelSpec m = test::model_spec(u.layers, 16, 4, 32, 8, 24);
    ParallelPlan plan;
    plan.tensor.size = u.tp;
    plan.tensor.sequence_parallel = u.tp > 1;
    plan.pipeline.size = u.pp;
    plan.pipeline.schedule = u.schedule;
    plan.pipeline.first_stage_layers = u.first;
    plan.pipeline.last_stage_layers = u.last;
    plan.data.size = u.dp;
    plan.data.zero = u.zero;
    plan.recompute = u.recompute;
    CAPTURE(u.pp);
    CAPTURE(u.layers);
    const std::optional<std::string> problem = plan.pipeline.uneven_problem(m.layers);
    if (problem) {
      // 8 layers with the last stage 1 leave 7 for 3 stages: stated, not silently rounded.
      CHECK(problem->find("must divide evenly") != std::string::npos);
      CHECK_THROWS_AS(check_against_single_device(m, plan, test::training_spec(2 * u.dp * 2, 2),
                                                  rng()),
                      Infeasible);
      continue;
    }
    test::check_random_model(m, plan, test::training_spec(2 * u.dp * 2, 2), rng());
  }
  ParallelPlan plan;
  plan.pipeline.size = 4;
  plan.pipeline.first_stage_layers = 1;
  plan.pipeline.last_stage_layers = 1;
  CHECK(plan.pipeline.stage_layers(14, 0) == 1);
  CHECK(plan.pipeline.stage_layers(14, 1) == 6);
  CHECK(plan.pipeline.stage_layers(14, 3) == 1);
  CHECK(plan.pipeline.stage_first_layer(14, 3) == 13);
  // Two stages, both stated: they must hold every layer.
  ParallelPlan two;
  two.pipeline.size = 2;
  two.pipeline.first_stage_layers = 3;
  two.pipeline.last_stage_layers = 5;
  CHECK_FALSE(two.pipeline.uneven_problem(8).has_value());
  CHECK(two.pipeline.uneven_problem(9).has_value());
  plan.pipeline.schedule = PipelineSchedule::interleaved;
  plan.pipeline.chunks = 2;
  CHECK(plan.pipeline.uneven_problem(14)->find("one chunk per stage") != std::string::npos);
}

TEST_CASE("cpu: interleaved 1F1B (v 2, 3) x p {2,4} x TP 2 x SP x DP 2 equals one device") {
  std::mt19937_64 rng(20261122);
  using S = PipelineSchedule;
  const PipelineCase cases[] = {
      {S::interleaved, 2, 1, false, 1, 0, Recompute::none, 2, 2},
      {S::interleaved, 2, 1, false, 1, 0, Recompute::selective, 4, 3},
      {S::interleaved, 4, 1, false, 1, 0, Recompute::none, 8, 2},
      {S::interleaved, 2, 2, false, 1, 0, Recompute::full, 4, 2},  // scatter/gather
      {S::interleaved, 2, 2, true, 2, 1, Recompute::none, 2, 2},   // TP x SP x DP x ZeRO 1
      {S::interleaved, 2, 1, false, 2, 0, Recompute::none, 4, 2},  // DP all-reduce per chunk
  };
  for (const PipelineCase& c : cases)
    check_pipeline_case(rng, c);
}

TEST_CASE(
    "cpu: --overlap-param-gather (ZeRO 1, 2) x 1F1B, interleaved x TP 2 x SP x DP 2 equals one "
    "device") {
  // Each rank starts with only its own chunk of every bucket current (the others NaN, as the
  // previous step left them): the step's gather must bring them in before the forward reads.
  std::mt19937_64 rng(20261126);
  using S = PipelineSchedule;
  using R = Recompute;
  const PipelineCase cases[] = {
      {S::one_f_one_b, 2, 2, true, 2, 1, R::none, 3, 1, true},
      {S::interleaved, 2, 2, true, 2, 1, R::selective, 4, 2, true},
      {S::interleaved, 2, 1, false, 2, 2, R::none, 2, 2, true},
  };
  for (const PipelineCase& c : cases)
    check_pipeline_case(rng, c);
}

TEST_CASE(
    "cpu: breadth-first and layered (v 2-4) x p {1,2,4} x TP 2 x SP x DP 2 equal one device") {
  std::mt19937_64 rng(20261123);
  using S = PipelineSchedule;
  const PipelineCase cases[] = {
      {S::breadth_first, 2, 1, false, 1, 0, Recompute::none, 3, 2},
      {S::breadth_first, 4, 1, false, 1, 0, Recompute::selective, 4, 2},
      {S::breadth_first, 4, 1, false, 1, 0, Recompute::none, 2, 2},  // m < p: stalls
      {S::breadth_first, 2, 2, false, 1, 0, Recompute::full, 2, 3},  // scatter/gather
      {S::breadth_first, 2, 2, true, 2, 1, Recompute::none, 3, 2},   // TP x SP x DP x ZeRO 1
      {S::breadth_first, 2, 1, false, 2, 0, Recompute::none, 2, 2},  // DP all-reduce per chunk
      {S::layered, 2, 1, false, 1, 0, Recompute::none, 3, 3},
      {S::layered, 4, 1, false, 1, 0, Recompute::full, 4, 2},
      {S::layered, 2, 2, false, 2, 0, Recompute::none, 2, 2},      // scatter/gather, DP per layer
      {S::layered, 2, 2, true, 2, 1, Recompute::selective, 3, 4},  // TP x SP x DP x ZeRO 1
      {S::layered, 4, 2, true, 1, 0, Recompute::none, 4, 2},
      // One stage: layered gradient accumulation without a pipeline (§7.6's LGA).
      {S::layered, 1, 1, false, 2, 0, Recompute::none, 3, 3},
      {S::layered, 1, 2, true, 2, 1, Recompute::selective, 2, 4},
      {S::layered, 1, 2, false, 1, 0, Recompute::full, 3, 2},
  };
  for (const PipelineCase& c : cases)
    check_pipeline_case(rng, c);
}

TEST_CASE("cpu: ZeRO 2 and 3 with every schedule x TP 2 x SP x DP 2 x recompute equal one device") {
  // The run rule (train_step.hpp): gathered parameters and accumulated gradient buckets kept
  // over runs of one chunk's passes, the tied embedding's reduced shard summed over the
  // embedding group, SP gradients summed over TP before the reduce-scatter.
  std::mt19937_64 rng(20261124);
  using S = PipelineSchedule;
  using R = Recompute;
  const PipelineCase cases[] = {
      {S::gpipe, 2, 1, false, 2, 2, R::none, 3},
      {S::gpipe, 2, 2, true, 2, 3, R::full, 2},
      {S::one_f_one_b, 2, 1, false, 2, 3, R::none, 4},
      {S::one_f_one_b, 2, 2, false, 2, 2, R::selective, 3},  // scatter/gather
      {S::one_f_one_b, 2, 2, true, 2, 3, R::none, 2},
      {S::one_f_one_b, 4, 1, false, 2, 2, R::none, 5},
      {S::interleaved, 2, 1, false, 2, 3, R::selective, 4, 2},
      {S::interleaved, 2, 2, true, 2, 2, R::none, 2, 2},
      {S::interleaved, 2, 1, false, 2, 2, R::full, 2, 3},
      {S::breadth_first, 2, 1, false, 2, 3, R::none, 3, 2},
      {S::breadth_first, 2, 2, true, 2, 2, R::full, 2, 2},
      {S::breadth_first, 2, 2, false, 2, 3, R::selective, 2, 3},
      {S::layered, 2, 1, false, 2, 3, R::none, 3, 3},
      {S::layered, 2, 2, true, 2, 2, R::selective, 3, 2},
      {S::layered, 2, 2, false, 2, 3, R::full, 2, 2},
      {S::layered, 4, 1, false, 2, 3, R::none, 4, 2},
      // One stage: layered gradient accumulation (§7.6's LGA with ZeRO).
      {S::layered, 1, 1, false, 2, 3, R::none, 3, 4},
      {S::layered, 1, 2, true, 2, 2, R::full, 2, 3},
      {S::layered, 1, 2, false, 2, 3, R::selective, 3, 2},
  };
  for (const PipelineCase& c : cases)
    check_pipeline_case(rng, c);
}

TEST_CASE("cpu: pipeline-parallel inference's loss equals one device's, every schedule") {
  std::mt19937_64 rng(20261125);
  using S = PipelineSchedule;
  const PipelineCase cases[] = {
      {S::gpipe, 2, 1, false, 1, 0, Recompute::none, 3},
      {S::one_f_one_b, 4, 2, true, 1, 0, Recompute::none, 2},
      {S::one_f_one_b, 2, 2, false, 2, 0, Recompute::none, 3},  // scatter/gather
      {S::interleaved, 2, 1, false, 2, 0, Recompute::none, 4, 2},
      {S::breadth_first, 2, 2, true, 1, 0, Recompute::none, 3, 2},
      {S::layered, 2, 1, false, 1, 0, Recompute::none, 2, 3},
      {S::layered, 1, 2, false, 2, 0, Recompute::none, 3, 4},
  };
  for (const PipelineCase& c : cases)
    check_pipeline_case(rng, c, RunMode::inference);
}

TEST_CASE("meta: pipeline transfers, scatter/gather, deallocated outputs, embedding group") {
  const ModelSpec m = small_model(4);
  const std::int64_t micro_batches = 6;
  for (const bool sp : {false, true}) {
    ParallelPlan plan = pipeline_plan(2, 2, 2);
    plan.tensor.sequence_parallel = sp;
    CAPTURE(sp);
    const program::Program prog =
        build_program(m, plan, test::training_spec(2 * micro_batches, 1), ProgramScope::every_rank);
    // [s·b, h] bf16 per micro batch, sent as 1/t per TP rank (scatter) or the SP shard.
    const std::int64_t boundary = 32 * 64 * 2 / 2;
    for (const program::RankProgram& r : prog.ranks) {
      const bool first = r.rank < 4;
      CAPTURE(r.rank);
      const auto sends = test::ops_of<program::Send>(r);
      const auto recvs = test::ops_of<program::Recv>(r);
      CHECK(sends.size() == static_cast<std::size_t>(micro_batches));
      CHECK(recvs.size() == static_cast<std::size_t>(micro_batches));
      for (const program::Op* op : recvs)
        CHECK(op->stream == program::Stream::pp_recv);
      for (const program::Op* op : sends) {
        CHECK(op->stream == program::Stream::pp_send);
        const auto& s = std::get<program::Send>(op->payload);
        CHECK(s.size.count() == boundary);
        CHECK(s.peer == (first ? r.rank + 4 : r.rank - 4));
        CHECK(op->tag.phase == (first ? program::Phase::forward : program::Phase::backward));
      }
      // Scatter/gather without SP: every received chunk is all-gathered over TP.
      std::int64_t gathers = 0;
      std::int64_t embedding = 0;
      for (const program::Op& op : r.ops) {
        const std::string_view name = prog.names.name(op.name);
        if (name.starts_with("pp.recv_") && name.ends_with(".all_gather") &&
            std::holds_alternative<program::Collective>(op.payload))
          ++gathers;
        if (name == "embedding.grad.all_reduce") {
          ++embedding;
          const auto& c = std::get<program::Collective>(op.payload);
          CHECK(prog.groups[static_cast<std::size_t>(c.group)].kind ==
                program::GroupKind::embedding);
          CHECK(prog.groups[static_cast<std::size_t>(c.group)].ranks ==
                std::vector<program::Rank>{r.rank % 4, r.rank % 4 + 4});
        }
      }
      CHECK(gathers == (sp ? 0 : micro_batches));
      CHECK(embedding == 1);
      // Every sent tensor is freed right after its send, on the stream that sent it (the
      // compute stream does not wait for sends).
      for (std::size_t i = 0; i + 1 < r.ops.size(); ++i) {
        if (!std::holds_alternative<program::Send>(r.ops[i].payload)) continue;
        CHECK(std::holds_alternative<program::Free>(r.ops[i + 1].payload));
        CHECK(r.ops[i + 1].stream == program::Stream::pp_send);
      }
    }
  }
}

TEST_CASE("meta: representative records one rank per stage") {
  const ModelSpec m = small_model(8);
  const program::Program rep = build_program(m, pipeline_plan(2, 4, 2), test::training_spec(16, 1),
                                             ProgramScope::representative);
  REQUIRE(rep.ranks.size() == 4);
  for (std::size_t s = 0; s < 4; ++s)
    CHECK(rep.ranks[s].rank == static_cast<program::Rank>(4 * s));
  for (std::int32_t r = 0; r < 16; ++r)
    CHECK(rep.representative[static_cast<std::size_t>(r)] == r / 4);
}

TEST_CASE("meta: pipelines the executor cannot run are Infeasible, naming the field") {
  const ModelSpec m = small_model(4);
  CHECK_THROWS_WITH_AS(build_program(m, pipeline_plan(1, 3, 1), test::training_spec(4, 1),
                                     ProgramScope::representative),
                       doctest::Contains("not divisible by pipeline.size 3"), Infeasible);
  ParallelPlan inter = pipeline_plan(1, 2, 1, PipelineSchedule::interleaved);
  inter.pipeline.chunks = 2;
  CHECK_THROWS_WITH_AS(
      build_program(m, inter, test::training_spec(3, 1), ProgramScope::representative),
      doctest::Contains("multiple of pipeline.size 2"), Infeasible);
  inter.pipeline.schedule = PipelineSchedule::breadth_first;
  inter.pipeline.chunks = 1;
  CHECK_THROWS_WITH_AS(
      build_program(m, inter, test::training_spec(4, 1), ProgramScope::representative),
      doctest::Contains("breadth-first needs chunks >= 2"), Infeasible);
  inter.pipeline.schedule = PipelineSchedule::layered;
  inter.pipeline.chunks = 1;
  CHECK_THROWS_WITH_AS(
      build_program(m, inter, test::training_spec(4, 1), ProgramScope::representative),
      doctest::Contains("chunks 1 must be layers / pipeline.size = 4 / 2"), Infeasible);
  inter.pipeline.size = 1;
  inter.pipeline.chunks = 2;
  CHECK_THROWS_WITH_AS(
      build_program(m, inter, test::training_spec(4, 1), ProgramScope::representative),
      doctest::Contains("chunks 2 must be layers / pipeline.size = 4 / 1"), Infeasible);
  inter.pipeline.schedule = PipelineSchedule::breadth_first;
  CHECK_THROWS_WITH_AS(
      build_program(m, inter, test::training_spec(4, 1), ProgramScope::representative),
      doctest::Contains("breadth-first without a pipeline (pipeline.size 1)"), Infeasible);
  // The search's question, answered without a throw: the same message, or nothing.
  const std::optional<std::string> problem = support_problem(m, inter, test::training_spec(4, 1));
  REQUIRE(problem.has_value());
  CHECK(problem->find("breadth-first without a pipeline (pipeline.size 1)") != std::string::npos);
  inter.pipeline.schedule = PipelineSchedule::one_f_one_b;
  inter.pipeline.chunks = 1;
  CHECK_FALSE(support_problem(m, inter, test::training_spec(4, 1)).has_value());
  CHECK_NOTHROW(check_supported(m, inter, test::training_spec(4, 1)));
}
