// Pipelines with 2D (SUMMA), 2.5D (Tesseract) and 3D (cube) tensor parallelism, as ColossalAI
// runs them: each grid or cube device sends its own block of the stage-boundary activation to
// the device on the same cell of the next stage (no Megatron scatter/gather). The cpu backend
// in fp64 equals one device (loss, every gradient, parameters after Adam); the meta Programs
// carry one block-sized send per boundary and micro batch, sum the tied embedding over the
// cell's embedding group, split the GEMM FLOPs without redundancy and record every stage's
// TP block of DP replica 0.
#include <doctest/doctest.h>

#include <random>
#include <variant>

#include "equivalence_asserts.hpp"
#include "models/build_program.hpp"
#include "models/equivalence_check.hpp"
#include "models/errors.hpp"
#include "models/rank_layout.hpp"

using namespace trainsim;

namespace {

struct GridPipelineCase {
  TensorKind kind = TensorKind::two_d;
  std::int64_t q = 2;
  std::int64_t depth = 1;  ///< 2.5D stacked grids
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  std::int64_t pp = 2;
  std::int64_t chunks = 1;
  std::int64_t dp = 1;
  int zero = 0;
  Recompute recompute = Recompute::none;
  std::int64_t micro_batches = 2;  ///< per replica
};

ParallelPlan plan_of(const GridPipelineCase& c) {
  ParallelPlan plan;
  plan.tensor.kind = c.kind;
  plan.tensor.depth = c.kind == TensorKind::two_and_half_d ? c.depth : 1;
  plan.tensor.size =
      c.kind == TensorKind::three_d ? c.q * c.q * c.q : c.q * c.q * plan.tensor.depth;
  plan.tensor.grid_order = default_grid_order(c.kind);
  plan.pipeline.size = c.pp;
  plan.pipeline.schedule = c.schedule;
  plan.pipeline.chunks = c.chunks;
  plan.data.size = c.dp;
  plan.data.zero = c.zero;
  plan.recompute = c.recompute;
  return plan;
}

// Sequences of a micro batch that the block splits: q (2D), q·d (2.5D), q² (3D).
std::int64_t batch_blocks(const GridPipelineCase& c) {
  if (c.kind == TensorKind::three_d) return c.q * c.q;
  return c.q * (c.kind == TensorKind::two_and_half_d ? c.depth : 1);
}

void check_case(std::mt19937_64& rng, const GridPipelineCase& c) {
  ModelSpec m = test::random_grid_model(rng, c.q, c.kind == TensorKind::three_d ? c.q * c.q : c.q);
  m.layers = c.pp * c.chunks * (1 + static_cast<std::int64_t>(rng() % 2));
  if (c.schedule == PipelineSchedule::layered) m.layers = c.pp * c.chunks;  // a layer per chunk
  TrainingSpec training;
  training.micro_batch = batch_blocks(c);
  training.global_batch = training.micro_batch * c.dp * c.micro_batches;
  ParallelPlan plan = plan_of(c);
  plan.data.overlap_grad_reduce = (rng() % 2) == 0;
  CAPTURE(to_string(c.kind));
  CAPTURE(to_string(c.schedule));
  CAPTURE(c.pp);
  CAPTURE(c.chunks);
  CAPTURE(c.dp);
  CAPTURE(c.zero);
  CAPTURE(to_string(c.recompute));
  CAPTURE(plan.data.overlap_grad_reduce);
  const EquivalenceReport r = test::check_random_model(m, plan, training, rng());
  MESSAGE(to_string(c.kind) << " q=" << c.q << " " << to_string(c.schedule) << " p=" << c.pp
                            << " v=" << c.chunks << " d=" << c.dp << " zero=" << c.zero
                            << ": loss error " << r.loss_error << ", gradient error "
                            << r.max_gradient_error << ", value error " << r.max_value_error);
}

// A model every block of side 2 splits: heads by q, hidden and ffn by q², vocabulary by q².
ModelSpec grid_model(std::int64_t layers) {
  return test::model_spec(layers, 64, 4, 256, 16, 64);
}

TrainingSpec batches(std::int64_t micro_batches, std::int64_t micro_batch) {
  return test::training_spec(micro_batches * micro_batch, micro_batch);
}

}  // namespace

TEST_CASE("cpu: 2D q=2 x PP 2 (every schedule) and layered on one stage equal one device") {
  std::mt19937_64 rng(20261201);
  using S = PipelineSchedule;
  const auto two_d = TensorKind::two_d;
  const GridPipelineCase cases[] = {
      {two_d, 2, 1, S::one_f_one_b, 2, 1, 1, 0, Recompute::none, 3},
      {two_d, 2, 1, S::one_f_one_b, 2, 1, 2, 1, Recompute::selective, 2},  // DP 2, ZeRO 1
      {two_d, 2, 1, S::gpipe, 2, 1, 2, 0, Recompute::full, 2},
      {two_d, 2, 1, S::interleaved, 2, 2, 1, 0, Recompute::none, 4},
      {two_d, 2, 1, S::interleaved, 2, 2, 2, 0, Recompute::none, 2},  // DP per chunk
      {two_d, 2, 1, S::breadth_first, 2, 2, 1, 0, Recompute::none, 3},
      {two_d, 2, 1, S::layered, 2, 2, 1, 0, Recompute::selective, 2},
      {two_d, 2, 1, S::layered, 1, 3, 2, 1, Recompute::none, 2},  // one stage (LGA)
  };
  for (const GridPipelineCase& c : cases)
    check_case(rng, c);
}

TEST_CASE("cpu: 2.5D q=2 d=2 and 3D q=2 x PP 2 equal one device in fp64") {
  std::mt19937_64 rng(20261202);
  using S = PipelineSchedule;
  const auto half = TensorKind::two_and_half_d;
  const auto cube = TensorKind::three_d;
  const GridPipelineCase cases[] = {
      {half, 2, 2, S::one_f_one_b, 2, 1, 1, 0, Recompute::none, 2},
      {half, 2, 2, S::one_f_one_b, 2, 1, 2, 1, Recompute::full, 2},  // depth x DP, ZeRO 1
      {half, 2, 2, S::interleaved, 2, 2, 1, 0, Recompute::none, 2},
      {cube, 2, 1, S::one_f_one_b, 2, 1, 1, 0, Recompute::none, 3},
      {cube, 2, 1, S::gpipe, 2, 1, 2, 1, Recompute::selective, 2},  // DP 2, ZeRO 1
      {cube, 2, 1, S::interleaved, 2, 2, 1, 0, Recompute::full, 2},
  };
  for (const GridPipelineCase& c : cases)
    check_case(rng, c);
}

TEST_CASE("meta: a grid or cube device sends its own block to the same cell of the next stage") {
  // [s·b/q, h/q] per 2D/2.5D grid device, [s·b/q², h/q] per cube device, bf16.
  using S = PipelineSchedule;
  const std::int64_t micro_batches = 4;
  for (const GridPipelineCase& c :
       {GridPipelineCase{TensorKind::two_d, 2, 1, S::one_f_one_b, 2, 1, 2},
        GridPipelineCase{TensorKind::two_and_half_d, 2, 2, S::one_f_one_b, 2, 1, 1},
        GridPipelineCase{TensorKind::three_d, 2, 1, S::gpipe, 2, 1, 1}}) {
    CAPTURE(to_string(c.kind));
    const ParallelPlan plan = plan_of(c);
    const std::int64_t micro = batch_blocks(c) * 2;
    const program::Program prog = build_program(
        grid_model(4), plan, batches(micro_batches * c.dp, micro), ProgramScope::every_rank);
    REQUIRE(prog.records_every_rank());
    const std::int64_t rows =
        16 * micro / (c.kind == TensorKind::three_d ? c.q * c.q : c.q * c.depth);
    const std::int64_t block_bytes = rows * (64 / c.q) * 2;
    const std::int64_t stage_ranks = plan.tensor.size * c.dp;
    for (const program::RankProgram& r : prog.ranks) {
      CAPTURE(r.rank);
      const bool first = r.rank < stage_ranks;
      const auto sends = test::ops_of<program::Send>(r);
      const auto recvs = test::ops_of<program::Recv>(r);
      CHECK(sends.size() == static_cast<std::size_t>(micro_batches));
      CHECK(recvs.size() == static_cast<std::size_t>(micro_batches));
      for (const program::Op* op : sends) {
        const auto& s = std::get<program::Send>(op->payload);
        CHECK(s.size.count() == block_bytes);
        CHECK(s.peer == (first ? r.rank + stage_ranks : r.rank - stage_ranks));
      }
      std::int64_t embedding = 0;
      for (const program::Op& op : r.ops) {
        const std::string_view name = prog.names.name(op.name);
        // No scatter/gather: the block is used as received.
        CHECK_FALSE(name.starts_with("pp.recv_forward.all_gather"));
        CHECK_FALSE(name.starts_with("pp.recv_backward.all_gather"));
        if (name != "embedding.grad.all_reduce") continue;
        ++embedding;
        const auto& coll = std::get<program::Collective>(op.payload);
        const auto base = static_cast<program::Rank>(r.rank % stage_ranks);
        CHECK(prog.groups[static_cast<std::size_t>(coll.group)].ranks ==
              std::vector<program::Rank>{base, static_cast<program::Rank>(base + stage_ranks)});
      }
      CHECK(embedding == 1);
    }
  }
}

TEST_CASE("meta: grid and cube pipelines split the GEMM FLOPs without redundant work") {
  using S = PipelineSchedule;
  for (const GridPipelineCase& c :
       {GridPipelineCase{TensorKind::two_d, 2, 1, S::interleaved, 2, 2, 2},
        GridPipelineCase{TensorKind::two_and_half_d, 2, 2, S::one_f_one_b, 2, 1, 1},
        GridPipelineCase{TensorKind::three_d, 2, 1, S::breadth_first, 2, 2, 1}}) {
    for (const Recompute rc : {Recompute::none, Recompute::full}) {
      CAPTURE(to_string(c.kind));
      CAPTURE(to_string(rc));
      ParallelPlan plan = plan_of(c);
      plan.recompute = rc;
      const TrainingSpec tr = batches(4 * c.dp, batch_blocks(c));
      const program::Program p = build_program(grid_model(8), plan, tr, ProgramScope::every_rank);
      CHECK(test::total_gemm_flops(p) == grid_model(8).hardware_flops(tr.global_batch, rc).count());
    }
  }
}

TEST_CASE("meta: representative records every stage's TP block of DP replica 0") {
  using S = PipelineSchedule;
  // 2.5D q=2 d=2 x PP 2 x DP 2: depth layer 0's grid (4 ranks) of replica 0 on each stage;
  // 3D q=2 x PP 2 x DP 2: the whole cube (8 ranks) of replica 0 on each stage.
  for (const GridPipelineCase& c :
       {GridPipelineCase{TensorKind::two_and_half_d, 2, 2, S::one_f_one_b, 2, 1, 2},
        GridPipelineCase{TensorKind::three_d, 2, 1, S::one_f_one_b, 2, 1, 2}}) {
    CAPTURE(to_string(c.kind));
    const ParallelPlan plan = plan_of(c);
    const RankLayout layout(plan);
    const program::Program rep = build_program(grid_model(4), plan, batches(4, batch_blocks(c)),
                                               ProgramScope::representative);
    const std::int64_t block = c.kind == TensorKind::three_d ? 8 : 4;
    REQUIRE(rep.ranks.size() == static_cast<std::size_t>(block * c.pp));
    for (const program::RankProgram& r : rep.ranks) {
      const RankCoordinates rc = layout.coordinates(r.rank);
      CHECK(rc.dp == 0);
      if (layout.grid()) CHECK(layout.cell(r.rank).depth == 0);
    }
    // Every rank stands on a recorded rank of its own stage and cell.
    for (std::int64_t rank = 0; rank < layout.world_size(); ++rank) {
      CAPTURE(rank);
      const auto& stand_in =
          rep.ranks[static_cast<std::size_t>(rep.representative[static_cast<std::size_t>(rank)])];
      const RankCoordinates mine = layout.coordinates(rank);
      CHECK(layout.coordinates(stand_in.rank).pp == mine.pp);
      if (layout.cube()) CHECK(layout.coordinates(stand_in.rank).tp == mine.tp);
      if (layout.grid()) {
        CHECK(layout.cell(stand_in.rank).row == layout.cell(rank).row);
        CHECK(layout.cell(stand_in.rank).column == layout.cell(rank).column);
      }
    }
  }
}

TEST_CASE("cpu: 2D | 2.5D | 3D pipelines with ZeRO 2 and 3 equal one device in fp64") {
  // ZeRO shards each grid or cube device's parameters over its gradient group (2.5D: depth x
  // DP), gathered and reduce-scattered once per run of a chunk's passes (models/README.md).
  std::mt19937_64 rng(20261203);
  using S = PipelineSchedule;
  const auto two_d = TensorKind::two_d;
  const GridPipelineCase cases[] = {
      {two_d, 2, 1, S::one_f_one_b, 2, 1, 2, 2, Recompute::none, 2},
      {two_d, 2, 1, S::layered, 2, 2, 2, 3, Recompute::selective, 3},
      {two_d, 2, 1, S::interleaved, 2, 2, 2, 3, Recompute::full, 2},
      {TensorKind::two_and_half_d, 2, 2, S::breadth_first, 2, 2, 1, 3, Recompute::none, 2},
      {TensorKind::three_d, 2, 1, S::one_f_one_b, 2, 1, 2, 3, Recompute::none, 2},
  };
  for (const GridPipelineCase& c : cases)
    check_case(rng, c);
}
