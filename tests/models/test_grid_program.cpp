// The Programs of 2D and 2.5D tensor parallelism on the meta backend: GEMM FLOPs summed over
// the GPUs equal the one-device FLOPs, and the communication per layer equals the closed
// forms of parallelism-reference §6.2 plus the terms §6.2 leaves out (written out below).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>

#include "equivalence_asserts.hpp"
#include "models/build_program.hpp"
#include "models/rank_layout.hpp"

using namespace trainsim;
using namespace trainsim::program;

namespace {

ModelSpec grid_model() {
  ModelSpec m;
  m.layers = 2;
  m.hidden = 144;  // divisible by q² for q = 2, 3 and 4
  m.heads = 12;
  m.ffn = 4 * 144;
  m.seq_len = 16;
  m.vocab = 2304;  // a multiple of 128 x q for q = 2, 3: no padding
  return m;
}

ParallelPlan grid_plan(TensorKind kind, std::int64_t q, std::int64_t depth, std::int64_t dp) {
  ParallelPlan p;
  p.tensor.kind = kind;
  p.tensor.size = q * q * depth;
  p.tensor.depth = depth;
  p.data.size = dp;
  return p;
}

TrainingSpec batch(std::int64_t global, std::int64_t micro) {
  return test::training_spec(global, micro);
}

// Elements of a collective (nccl-tests size over the element size).
double elements(const Collective& c) {
  return static_cast<double>(c.size.count()) / static_cast<double>(bytes_per_element(c.dtype));
}

struct Case {
  TensorKind kind;
  std::int64_t q;
  std::int64_t depth;
};

}  // namespace

TEST_CASE("meta: 2D/2.5D GEMM FLOPs summed over GPUs equal one device's, for every recompute") {
  const ModelSpec m = grid_model();
  for (const Case c : {Case{TensorKind::two_d, 2, 1}, Case{TensorKind::two_d, 3, 1},
                       Case{TensorKind::two_and_half_d, 2, 2}}) {
    for (Recompute rc : {Recompute::none, Recompute::selective, Recompute::full}) {
      CAPTURE(to_string(c.kind));
      CAPTURE(c.q);
      CAPTURE(to_string(rc));
      ParallelPlan plan = grid_plan(c.kind, c.q, c.depth, 2);
      plan.recompute = rc;
      const TrainingSpec tr = batch(4 * c.q * c.depth, c.q * c.depth);
      const Program p = build_program(m, plan, tr, ProgramScope::every_rank);
      REQUIRE(p.records_every_rank());
      // SUMMA does no redundant GEMM work: q steps of 1/q of the product on q² devices.
      CHECK(test::total_gemm_flops(p) == m.hardware_flops(tr.global_batch, rc).count());
    }
  }
}

TEST_CASE("meta: 2D/2.5D communication per layer equals the closed forms") {
  const ModelSpec m = grid_model();
  const double h = static_cast<double>(m.hidden);
  const double f = static_cast<double>(m.ffn);
  for (const Case c : {Case{TensorKind::two_d, 2, 1}, Case{TensorKind::two_d, 3, 1},
                       Case{TensorKind::two_and_half_d, 2, 2}}) {
    CAPTURE(to_string(c.kind));
    CAPTURE(c.q);
    const double q = static_cast<double>(c.q);
    const double d = static_cast<double>(c.depth);
    const std::int64_t micro = 2 * c.q * c.depth;
    const Program p = build_program(m, grid_plan(c.kind, c.q, c.depth, 1), batch(2 * micro, micro),
                                    ProgramScope::representative);
    const RankLayout layout(grid_plan(c.kind, c.q, c.depth, 1));
    const double T = static_cast<double>(micro * m.seq_len);  // tokens of the micro batch
    // Per layer and micro batch, on every recorded GPU, by kind of traffic.
    std::map<std::tuple<Rank, std::int32_t, std::int32_t>, std::map<std::string, double>> sums;
    double gradient_all_reduce = 0.0;
    for (const RankProgram& r : p.ranks) {
      for (const Op& op : r.ops) {
        const auto* coll = std::get_if<Collective>(&op.payload);
        if (coll == nullptr || test::optimizer_scalar(p, op)) continue;
        const Group& g = p.groups[static_cast<std::size_t>(coll->group)];
        if (g.kind == GroupKind::dp) {
          CHECK(coll->kind == CollectiveKind::all_reduce);
          if (r.rank == 0) gradient_all_reduce += elements(*coll);
          continue;
        }
        CHECK(g.kind == GroupKind::tp);
        CHECK(g.ranks.size() == static_cast<std::size_t>(c.q));
        // Each communicator has its own stream: row traffic on tp, column traffic on
        // tp_column, so the two can overlap.
        auto row = layout.row_group(r.rank);
        std::vector<std::int64_t> members(g.ranks.begin(), g.ranks.end());
        std::sort(row.begin(), row.end());
        std::sort(members.begin(), members.end());
        const bool is_row = members == row;
        CHECK(op.stream == (is_row ? Stream::tp : Stream::tp_column));
        if (op.tag.layer == Tag::kNoLayer) continue;
        std::string what;
        switch (coll->kind) {
          case CollectiveKind::broadcast:
          case CollectiveKind::reduce:
            what = "summa";
            break;
          case CollectiveKind::all_reduce:
            what = "layer_norm";
            break;
          default:
            what = "vectors";  // all-gather of the shards, reduce-scatter of their gradients
        }
        auto& s = sums[{r.rank, op.tag.layer, op.tag.micro_batch}];
        s[what] += elements(*coll);
        s[what + ".count"] += 1.0;
      }
    }
    REQUIRE(sums.size() == p.ranks.size() * 2 * 2);  // ranks x layers x micro batches
    for (const auto& [key, s] : sums) {
      // §6.2: 3 (7 T h / d + 12 h²) / q with broadcast and reduce counted at their size S,
      // here for ffn f: Σ k = 3h + f over QKV, proj, FC1, FC2 and Σ k·n = 4h² + 2hf.
      CHECK(
          s.at("summa") ==
          doctest::Approx(3.0 * (T / d * (3 * h + f) + 4 * h * h + 2 * h * f) / q).epsilon(1e-12));
      CHECK(s.at("summa.count") == 4 * 6 * q);  // 6q collectives per linear (§6.2: ≈ 6q)
      // Left out by §6.2: LayerNorm statistics (mean and variance forward, the two sums
      // backward) of the T/(dq) local rows, 2 LayerNorms ...
      CHECK(s.at("layer_norm") == 2 * 4 * T / (d * q));
      // ... and ColossalAI's vectors (2 x 2 LayerNorm, QKV, proj, FC1, FC2 biases: 9h + f
      // elements), all-gathered to n/q forward and reduce-scattered from n/q backward.
      CHECK(s.at("vectors") == 2 * (9 * h + f) / q);
    }
    // Once per step over the depth group (2.5D; DP 1): every gradient of the q² shard,
    // 2(d-1)/d of it moved per GPU by a ring.
    const double layer_params = (4 * h * h + 2 * h * f) / (q * q) + (9 * h + f) / (q * q);
    const double embedding =
        (static_cast<double>(m.vocab) * h + static_cast<double>(m.seq_len) * h) / (q * q);
    const double final_ln = 2 * h / (q * q);
    if (c.depth > 1) {
      CHECK(gradient_all_reduce == 2 * layer_params + embedding + final_ln);
    } else {
      CHECK(gradient_all_reduce == 0.0);
    }
  }
}

TEST_CASE("meta: 2D groups are rows and columns of the grid in the plan's grid order") {
  const ModelSpec m = grid_model();
  for (GridOrder order : {GridOrder::row_major, GridOrder::column_major}) {
    ParallelPlan plan = grid_plan(TensorKind::two_d, 2, 1, 2);
    plan.tensor.grid_order = order;
    const Program p = build_program(m, plan, batch(4, 2), ProgramScope::representative);
    std::map<std::int32_t, std::vector<std::vector<Rank>>> by_family;
    for (const Group& g : p.groups)
      by_family[g.family].push_back(g.ranks);
    using Groups = std::vector<std::vector<Rank>>;
    const bool rows = order == GridOrder::row_major;
    // Ranks 0-3 are DP replica 0's grid, 4-7 replica 1's.
    CHECK(by_family.at(1) == Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});  // gradient (DP)
    CHECK(by_family.at(2) == (rows ? Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}
                                   : Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));  // grid rows
    CHECK(by_family.at(3) == (rows ? Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}
                                   : Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));  // grid columns
    CHECK(by_family.count(0) == 0);                                             // no 1D TP groups
    // One grid recorded; replica 1 stands on it cell by cell.
    CHECK(p.ranks.size() == 4);
    CHECK(p.representative == std::vector<std::int32_t>{0, 1, 2, 3, 0, 1, 2, 3});
  }
}

TEST_CASE("meta: 2.5D depth-major puts each depth group on adjacent GPUs") {
  const RankLayout layout(grid_plan(TensorKind::two_and_half_d, 2, 2, 1));
  ParallelPlan plan = grid_plan(TensorKind::two_and_half_d, 2, 2, 1);
  plan.tensor.grid_order = GridOrder::depth_major;
  const RankLayout depth_major(plan);
  // Row-major: in-grid rank j + q (i + q k) (ColossalAI); depth group of cell (0, 0) = {0, 4}.
  CHECK(layout.gradient_group(0) == std::vector<std::int64_t>{0, 4});
  CHECK(layout.row_group(5) == std::vector<std::int64_t>{4, 5});
  CHECK(layout.column_group(5) == std::vector<std::int64_t>{5, 7});
  CHECK(depth_major.gradient_group(0) == std::vector<std::int64_t>{0, 1});
  CHECK(depth_major.row_group(0) == std::vector<std::int64_t>{0, 2});
  CHECK(depth_major.column_group(0) == std::vector<std::int64_t>{0, 4});
  for (std::int64_t r = 0; r < 8; ++r) {
    CHECK(depth_major.grid()->index(depth_major.cell(r)) == r);
    CHECK(layout.grid()->index(layout.cell(r)) == r);
  }
}
