// The Programs of 3D tensor parallelism on the meta backend: GEMM FLOPs summed over the GPUs
// equal the one-device FLOPs, the communication per layer equals the closed form of
// parallelism-reference §6.2 plus the terms it leaves out (written out below), the cube's
// groups follow the plan's order, and the op-count guard of build_program covers 3D.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "equivalence_asserts.hpp"
#include "models/build_program.hpp"
#include "models/rank_layout.hpp"

using namespace trainsim;
using namespace trainsim::program;

namespace {

ModelSpec cube_model() {
  ModelSpec m;
  m.layers = 2;
  m.hidden = 144;  // divisible by q² for q = 2, 3
  m.heads = 12;
  m.ffn = 4 * 144;
  m.seq_len = 16;
  m.vocab = 4608;  // a multiple of 128 x q² for q = 2, 3: no padding
  return m;
}

ParallelPlan cube_plan(std::int64_t q, std::int64_t dp) {
  ParallelPlan p;
  p.tensor.kind = TensorKind::three_d;
  p.tensor.size = q * q * q;
  p.tensor.grid_order = GridOrder::weight_major;
  p.data.size = dp;
  return p;
}

// Elements of a collective (nccl-tests size over the element size).
double elements(const Collective& c) {
  return static_cast<double>(c.size.count()) / static_cast<double>(bytes_per_element(c.dtype));
}

}  // namespace

TEST_CASE("meta: 3D GEMM FLOPs summed over GPUs equal one device's for every recompute") {
  const ModelSpec m = cube_model();
  for (const std::int64_t q : {2, 3}) {
    for (Recompute rc : {Recompute::none, Recompute::selective, Recompute::full}) {
      CAPTURE(q);
      CAPTURE(to_string(rc));
      ParallelPlan plan = cube_plan(q, q == 2 ? 2 : 1);
      plan.recompute = rc;
      const TrainingSpec tr = test::training_spec(2 * q * q * plan.data.size, q * q);
      const Program p = build_program(m, plan, tr, ProgramScope::every_rank);
      REQUIRE(p.records_every_rank());
      // No redundant GEMM work: each device multiplies [T/q, k/q] by [k/q, n/q], 1/q³ of the
      // product, and the attention core of its b/q² sequences and a/q heads.
      CHECK(test::total_gemm_flops(p) == m.hardware_flops(tr.global_batch, rc).count());
    }
  }
}

TEST_CASE("meta: 3D communication per layer equals the closed form of §6.2") {
  const ModelSpec m = cube_model();
  const double h = static_cast<double>(m.hidden);
  const double f = static_cast<double>(m.ffn);
  for (const std::int64_t qi : {2, 3}) {
    CAPTURE(qi);
    const double q = static_cast<double>(qi);
    const std::int64_t micro = 2 * qi * qi;
    const Program p = build_program(m, cube_plan(qi, 1), test::training_spec(2 * micro, micro),
                                    ProgramScope::representative);
    REQUIRE(p.ranks.size() == static_cast<std::size_t>(qi * qi * qi));  // the whole cube
    const double T = static_cast<double>(micro * m.seq_len);            // tokens of the micro batch
    std::map<std::tuple<Rank, std::int32_t, std::int32_t>, std::map<std::string, double>> sums;
    for (const RankProgram& r : p.ranks) {
      // Each of the cube's five communicators has a stream of its own (program.hpp).
      std::map<GroupId, Stream> stream_of_group;
      std::set<Stream> streams;
      for (const Op& op : r.ops) {
        const auto* coll = std::get_if<Collective>(&op.payload);
        if (coll == nullptr || test::optimizer_scalar(p, op)) continue;
        const Group& g = p.groups[static_cast<std::size_t>(coll->group)];
        CHECK(g.kind == GroupKind::tp);  // DP 1: no gradient group traffic
        CHECK(op.stream != Stream::compute);
        CHECK(op.stream != Stream::dp);
        CHECK(op.stream != Stream::tp_column);
        const auto [at, fresh] = stream_of_group.try_emplace(coll->group, op.stream);
        CHECK(at->second == op.stream);
        if (fresh) streams.insert(op.stream);
        if (op.tag.layer == Tag::kNoLayer) continue;
        const bool line = g.ranks.size() == static_cast<std::size_t>(qi);
        CHECK((line || g.ranks.size() == static_cast<std::size_t>(qi * qi)));
        std::string what = "vectors";  // gradients of biases and gains over q² devices
        if (coll->kind != CollectiveKind::all_reduce) {
          CHECK(line);
          what = "linear";
        } else if (line) {
          what = "layer_norm";
        }
        auto& s = sums[{r.rank, op.tag.layer, op.tag.micro_batch}];
        // Ring volume per device: (n-1)/n of S for all-gather and reduce-scatter.
        const double n = static_cast<double>(g.ranks.size());
        s[what] += elements(*coll);
        s[what + ".ring"] += (n - 1) / n * elements(*coll);
        s[what + ".count"] += 1.0;
      }
      // Input, weight, output, input×weight, output×weight: five groups, five streams.
      CHECK(stream_of_group.size() == 5);
      CHECK(streams.size() == 5);
    }
    REQUIRE(sums.size() == p.ranks.size() * 2 * 2);  // ranks x layers x micro batches
    // Over QKV, proj, FC1, FC2 with ffn f: Σ k = 3h + f, Σ n = 5h + f, Σ k·n = 4h² + 2hf
    // (f = 4h: 7h, 9h, 12h²).
    const double sum_k = 3 * h + f;
    const double sum_n = 5 * h + f;
    const double sum_kn = 4 * h * h + 2 * h * f;
    for (const auto& [key, s] : sums) {
      // §6.2: 2 (q−1)/q³ · (T Σk + T Σn + Σkn) = 2 (q−1)/q³ · (16 T h + 12 h²) ...
      const double closed_form = 2 * (q - 1) / (q * q * q) * (T * sum_k + T * sum_n + sum_kn);
      // ... plus the memory-lean backward's second all-gather of X and W (cube_ops.hpp).
      const double regather = (q - 1) / (q * q * q) * (T * sum_k + sum_kn);
      CHECK(s.at("linear.ring") == doctest::Approx(closed_form + regather).epsilon(1e-12));
      CHECK(s.at("linear") == (3 * T * sum_k + 2 * T * sum_n + 3 * sum_kn) / (q * q));
      CHECK(s.at("linear.count") == 4 * 8);  // forward 3, backward 5 per linear
      // Left out by §6.2: LayerNorm statistics of the T/q² local rows over the output group
      // (mean and variance forward, the two sums backward), 2 LayerNorms ...
      CHECK(s.at("layer_norm") == 2 * 4 * T / (q * q));
      // ... and the [n/q] vector gradients (2 x 2 LayerNorm, QKV, proj, FC1, FC2 biases:
      // 9h + f elements) all-reduced over input x weight or output x weight.
      CHECK(s.at("vectors") == (9 * h + f) / q);
      CHECK(s.at("vectors.count") == 8);
    }
  }
}

TEST_CASE("meta: 3D activations per layer are Korthikanti's TP + SP figures over q³") {
  // Every saved tensor is a local shard [T/q², h/q] (attention core: b/q² sequences, a/q
  // heads): Table 2's rows with everything split, t = q³ (the memory-lean backward keeps no
  // gathered input).
  ModelSpec m;
  m.layers = 3;
  m.hidden = 6144;
  m.heads = 64;
  m.ffn = 4 * 6144;
  m.seq_len = 2048;
  m.vocab = 51200;
  for (const std::int64_t qi : {2, 4}) {
    for (const Recompute rc : {Recompute::none, Recompute::selective, Recompute::full}) {
      CAPTURE(qi);
      CAPTURE(to_string(rc));
      ParallelPlan plan = cube_plan(qi, 1);
      plan.recompute = rc;
      const std::int64_t b = qi * qi;
      const Program p =
          build_program(m, plan, test::training_spec(b, b), ProgramScope::representative);
      const double q3 = static_cast<double>(qi * qi * qi);
      const double sbh = static_cast<double>(m.seq_len * b * m.hidden);
      const double as_h = static_cast<double>(m.heads * m.seq_len) / static_cast<double>(m.hidden);
      double expected = sbh / q3 * (34.0 + 5.0 * as_h);
      if (rc == Recompute::selective) expected = 34.0 * sbh / q3;
      if (rc == Recompute::full) expected = 2.0 * sbh / q3;
      const std::map<int, std::int64_t> growth = test::activation_growth(p);
      REQUIRE(growth.size() == 2);
      for (const auto& [layer, bytes] : growth) {
        CAPTURE(layer);
        CHECK(static_cast<double>(bytes) == doctest::Approx(expected).epsilon(0.01));
      }
    }
  }
}

TEST_CASE("meta: 3D groups follow the cube order and one cube is recorded") {
  const auto layout_of = [](GridOrder order) {
    ParallelPlan plan = cube_plan(2, 2);
    plan.tensor.grid_order = order;
    return RankLayout(plan);
  };
  using Ranks = std::vector<std::int64_t>;
  // Weight-major (ColossalAI): rank = i + 2 (j + 2 k).
  const RankLayout weight = layout_of(GridOrder::weight_major);
  CHECK(weight.cube_group(0, CommGroup::weight) == Ranks{0, 1});
  CHECK(weight.cube_group(0, CommGroup::input) == Ranks{0, 2});
  CHECK(weight.cube_group(0, CommGroup::output) == Ranks{0, 4});
  CHECK(weight.cube_group(0, CommGroup::input_weight) == Ranks{0, 2, 1, 3});  // by i·q + j
  CHECK(weight.cube_group(0, CommGroup::output_weight) == Ranks{0, 4, 1, 5});
  CHECK(weight.cube_group(9, CommGroup::output) == Ranks{9, 13});  // DP replica 1
  CHECK(weight.gradient_group(3) == Ranks{3, 11});                 // DP only
  // Input-major: rank = j + 2 (k + 2 i); output-major: rank = k + 2 (i + 2 j).
  CHECK(layout_of(GridOrder::input_major).cube_group(0, CommGroup::input) == Ranks{0, 1});
  CHECK(layout_of(GridOrder::output_major).cube_group(0, CommGroup::output) == Ranks{0, 1});
  for (const GridOrder order :
       {GridOrder::weight_major, GridOrder::input_major, GridOrder::output_major}) {
    const RankLayout layout = layout_of(order);
    for (std::int64_t r = 0; r < 8; ++r)
      CHECK(layout.cube()->index(layout.cube_cell(r)) == r);
  }
  // Representative: the cube of replica 0, which replica 1 stands on cell by cell.
  const Program p = build_program(cube_model(), cube_plan(2, 2), test::training_spec(8, 4),
                                  ProgramScope::representative);
  CHECK(p.ranks.size() == 8);
  CHECK(p.representative ==
        std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7});
  std::map<std::int32_t, std::size_t> groups_per_family;
  for (const Group& g : p.groups)
    ++groups_per_family[g.family];
  CHECK(groups_per_family.count(0) == 0);  // no 1D TP groups
  CHECK(groups_per_family.at(1) == 8);     // gradient (DP) groups
  for (std::int32_t family = 4; family < 9; ++family) {
    CAPTURE(family);
    // Input, weight and output: 4 lines per cube; input x weight, output x weight: 2 planes.
    CHECK(groups_per_family.at(family) == (family < 7 ? 8u : 4u));
  }
}

TEST_CASE("meta: build_program's op-count guard covers 2D and 3D with ZeRO-3 and recompute") {
  // Ops per layer and micro batch, measured as the difference of two depths, with full
  // recomputation and ZeRO-3 (the most ops); they must stay under the estimate that
  // build_program uses to refuse Programs too large to record (models/program_size.cpp:
  // 3D 500, 2D 350 + 125 q).
  const auto per_layer = [](TensorKind kind, std::int64_t q) {
    const auto ops = [&](std::int64_t layers) {
      ModelSpec m = cube_model();
      m.layers = layers;
      ParallelPlan plan = cube_plan(q, 2);
      if (kind == TensorKind::two_d) {
        plan.tensor.kind = kind;
        plan.tensor.size = q * q;
        plan.tensor.grid_order = GridOrder::row_major;
      }
      plan.data.zero = 3;
      plan.recompute = Recompute::full;
      const std::int64_t micro = kind == TensorKind::two_d ? q : q * q;
      const Program p = build_program(m, plan, test::training_spec(4 * micro, micro),
                                      ProgramScope::representative);
      std::size_t most = 0;
      for (const RankProgram& r : p.ranks)
        most = std::max(most, r.ops.size());
      return static_cast<double>(most);
    };
    return (ops(4) - ops(2)) / (2.0 * 2.0);  // 2 layers more, 2 micro batches per replica
  };
  for (const std::int64_t q : {2, 3}) {
    CAPTURE(q);
    const double cube = per_layer(TensorKind::three_d, q);
    MESSAGE("3D q " << q << ": " << cube << " ops per layer and micro batch");
    CHECK(cube > 300.0);
    CHECK(cube < 500.0);
  }
  for (const std::int64_t q : {2, 4}) {
    CAPTURE(q);
    const double grid = per_layer(TensorKind::two_d, q);
    CHECK(grid > 250.0);
    CHECK(grid < 350.0 + 125.0 * static_cast<double>(q));
  }
}
