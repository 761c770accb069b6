// Inference mode (training.mode: inference): the Program holds forward passes only, the
// model state is the weights alone, nothing is kept for a backward pass, and on cpu the
// partitioned forward loss equals one device's training loss.
#include <doctest/doctest.h>

#include <string>
#include <unordered_set>
#include <variant>

#include "equivalence_asserts.hpp"
#include "models/build_program.hpp"
#include "models/errors.hpp"

using namespace trainsim;
using namespace trainsim::program;

namespace {

ModelSpec small_model() {
  return test::model_spec(2, 64, 4, 256, 16, 128);
}

// 4 GPUs under each scheme: 1D TP 2 x DP 2, 2D q = 2, 2.5D q = 2 d = 2 (8 GPUs).
struct Case {
  const char* name;
  ParallelPlan plan;
};

std::vector<Case> cases() {
  ParallelPlan one_d;
  one_d.tensor.size = 2;
  one_d.data.size = 2;
  ParallelPlan two_d;
  two_d.tensor = {TensorKind::two_d, 4, false, 1, GridOrder::row_major};
  ParallelPlan two_and_half;
  two_and_half.tensor = {TensorKind::two_and_half_d, 8, false, 2, GridOrder::row_major};
  return {{"1d", one_d}, {"2d", two_d}, {"2.5d", two_and_half}};
}

TrainingSpec inference(std::int64_t global, std::int64_t micro) {
  TrainingSpec t = test::training_spec(global, micro);
  t.mode = RunMode::inference;
  return t;
}

Bytes allocated(const Program& p, MemoryCategory category) {
  Bytes total = Bytes::zero();
  for (const Op& op : p.ranks.front().ops) {
    if (const auto* a = std::get_if<Alloc>(&op.payload); a && a->category == category) {
      total += a->size;
    }
  }
  return total;
}

}  // namespace

TEST_CASE("inference Program: forward only, no DP collectives, weights as the only state") {
  for (const Case& c : cases()) {
    CAPTURE(c.name);
    const TrainingSpec micro4 = inference(8, 4);
    const Program infer = build_program(small_model(), c.plan, micro4, ProgramScope::every_rank);
    TrainingSpec train = micro4;
    train.mode = RunMode::training;
    const Program training = build_program(small_model(), c.plan, train, ProgramScope::every_rank);

    std::unordered_set<GroupId> dp_groups;
    for (const Group& g : infer.groups) {
      if (g.kind == GroupKind::dp) dp_groups.insert(g.id);
    }
    std::int64_t forward_gemms = 0;
    for (const RankProgram& r : infer.ranks) {
      std::unordered_set<BufferId> live;
      for (const Op& op : r.ops) {
        CHECK(op.tag.phase == Phase::forward);
        if (const auto* coll = std::get_if<Collective>(&op.payload)) {
          CHECK(dp_groups.count(coll->group) == 0);
        }
        if (std::holds_alternative<Gemm>(op.payload)) ++forward_gemms;
        if (const auto* a = std::get_if<Alloc>(&op.payload)) {
          CHECK(a->category != MemoryCategory::gradients);
          CHECK(a->category != MemoryCategory::optimizer_state);
          CHECK(a->category != MemoryCategory::activations);  // nothing saved for backward
          if (a->category != MemoryCategory::parameters) live.insert(a->buffer);
        }
        if (const auto* f = std::get_if<Free>(&op.payload)) live.erase(f->buffer);
        // Eval mode: no dropout on the embedding or the attention probabilities.
        const std::string_view name = infer.names.name(op.name);
        CHECK(name != "embedding.dropout");
        CHECK(name != "attn.dropout");
      }
      CHECK(live.empty());  // every activation freed by the end of the step
    }
    CHECK(forward_gemms > 0);
    // The same weights as training; no gradients or optimizer state.
    CHECK(allocated(infer, MemoryCategory::parameters) ==
          allocated(training, MemoryCategory::parameters));
    CHECK(allocated(training, MemoryCategory::gradients) > Bytes::zero());
  }
}

TEST_CASE("inference Program: micro batches run one after another, forward FLOPs of training") {
  const ParallelPlan plan = cases().front().plan;
  const Program infer =
      build_program(small_model(), plan, inference(8, 2), ProgramScope::representative);
  TrainingSpec train = inference(8, 2);
  train.mode = RunMode::training;
  const Program training = build_program(small_model(), plan, train, ProgramScope::representative);
  Flops forward_training = Flops::zero();
  Flops inference_flops = Flops::zero();
  std::int32_t last_micro_batch = 0;
  for (const Op& op : training.ranks.front().ops) {
    if (std::holds_alternative<Gemm>(op.payload) && op.tag.phase == Phase::forward) {
      forward_training += op.flops();
    }
  }
  for (const Op& op : infer.ranks.front().ops) {
    if (std::holds_alternative<Gemm>(op.payload)) inference_flops += op.flops();
    last_micro_batch = std::max(last_micro_batch, op.tag.micro_batch);
  }
  CHECK(inference_flops == forward_training);
  CHECK(last_micro_batch == 1);  // 8 sequences / (micro 2 x DP 2)
}

TEST_CASE("inference rejects recomputation and ZeRO (Infeasible)") {
  ParallelPlan plan = cases().front().plan;
  plan.recompute = Recompute::full;
  CHECK_THROWS_AS(build_program(small_model(), plan, inference(4, 1), ProgramScope::representative),
                  Infeasible);
  plan.recompute = Recompute::none;
  plan.data.zero = 1;
  CHECK_THROWS_AS(build_program(small_model(), plan, inference(4, 1), ProgramScope::representative),
                  Infeasible);
}

TEST_CASE("cpu: the partitioned forward loss of inference equals one device's training loss") {
  for (const Case& c : cases()) {
    CAPTURE(c.name);
    const EquivalenceReport r =
        check_against_single_device(small_model(), c.plan, inference(16, 4), 7);
    CAPTURE(r.loss_error);
    CHECK(r.loss_single > 0.0);
    CHECK(r.parameters.empty());
    CHECK(r.loss_error < 1e-12);
    CHECK(r.passed);
  }
}
