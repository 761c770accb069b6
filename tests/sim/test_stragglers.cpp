// Stragglers in the replay (issue 25 item 5): a slow GPU's kernels stretched, its cost flowing
// through the collectives and pipeline transfers that wait for it; checked against the closed
// forms of a data-parallel step and of 1F1B with one unequal stage, and representative replay
// against every rank recorded.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "inputs/scenario_loader.hpp"
#include "models/build_program.hpp"
#include "models/stragglers.hpp"
#include "sim/analysis/straggler_robustness.hpp"
#include "sim/replay.hpp"

namespace trainsim::sim {
namespace {

const std::filesystem::path kRoot(TRAINSIM_SOURCE_ROOT);

struct Run {
  SimulationResult result;
  program::Program program;
};

Run replay_scenario(const Scenario& s, bool with_stragglers,
                    ProgramScope scope = ProgramScope::representative) {
  Run run{{}, build_program(s, scope)};
  ReplayOptions options;
  if (with_stragglers) options.kernel_slowdowns = kernel_slowdowns(s.stragglers, s.gpus);
  run.result = replay(run.program, inputs::scenario_hardware(s), options);
  REQUIRE(run.result.stuck.empty());
  return run;
}

Time busy(const TimeBreakdown& b) {
  return b.compute + b.recompute + b.optimizer;
}

TEST_CASE("stragglers: the draw is seeded, the rank always slow, none without a spec") {
  StragglerSpec spec;
  CHECK(kernel_slowdowns(spec, 8).empty());
  spec.rank = 5;
  spec.factor = 1.3;
  std::vector<double> f = kernel_slowdowns(spec, 8);
  REQUIRE(f.size() == 8);
  CHECK(f[5] == 1.3);
  CHECK(std::count(f.begin(), f.end(), 1.0) == 7);
  spec.rank.reset();
  spec.fraction = 0.25;
  spec.seed = 9;
  f = kernel_slowdowns(spec, 4096);
  const auto slow = std::count(f.begin(), f.end(), 1.3);
  CHECK(slow > 4096 / 4 - 100);
  CHECK(slow < 4096 / 4 + 100);
  CHECK(kernel_slowdowns(spec, 4096) == f);
  spec.seed = 10;
  CHECK(kernel_slowdowns(spec, 4096) != f);
}

TEST_CASE("stragglers: one GPU at 1.2 in a data-parallel step adds 20 % of its compute") {
  const Scenario s = inputs::load_scenario(kRoot / "scenarios/tests/straggler-dp4.yaml");
  REQUIRE(s.stragglers.rank == 2);
  const Run base = replay_scenario(s, false);
  const Run slow = replay_scenario(s, true);
  const double compute = busy(base.result.breakdown.front()).seconds();
  const double added = slow.result.iteration_time.seconds() - base.result.iteration_time.seconds();
  CHECK(added == doctest::Approx(0.2 * compute).epsilon(0.01));
  // Every GPU, not only the slow one, finishes later: they all wait at the all-reduce (the
  // slow one's optimizer step, after it, is slower still).
  const Run full = replay_scenario(s, true, ProgramScope::every_rank);
  for (const RankTimeline& t : full.result.timelines) {
    CAPTURE(t.rank);
    Time last = Time::zero();
    for (const OpTiming& op : t.ops) {
      if (op.end < Time::max()) last = std::max(last, op.end);  // max: not timed (memory ops)
    }
    CHECK(last.seconds() > base.result.iteration_time.seconds() + 0.7 * added);
  }
  CHECK(full.result.iteration_time.seconds() ==
        doctest::Approx(slow.result.iteration_time.seconds()).epsilon(0.005));
}

TEST_CASE("stragglers: a slow last stage sets 1F1B's pace, as the formula with one unequal stage") {
  // 1F1B with stage times t_s over m micro batches: T = Σ t_s + (m - 1)·max t_s. The last
  // stage (it also computes the logits) is the slowest already; f times slower, T grows by
  // m·(f - 1)·t_last, t_last the base run's time per micro batch in the steady state.
  Scenario s = inputs::load_scenario(kRoot / "scenarios/tests/straggler-pp4.yaml");
  const double f = s.stragglers.factor;
  const Run base16 = replay_scenario(s, false);
  const Run slow16 = replay_scenario(s, true);
  s.training.global_batch = 8;
  const Run base8 = replay_scenario(s, false);
  const Run slow8 = replay_scenario(s, true);
  const double t_last =
      (base16.result.iteration_time - base8.result.iteration_time).seconds() / 8.0;
  const double slow_period =
      (slow16.result.iteration_time - slow8.result.iteration_time).seconds() / 8.0;
  CHECK(slow_period == doctest::Approx(f * t_last).epsilon(0.01));
  const double added = (slow16.result.iteration_time - base16.result.iteration_time).seconds();
  CHECK(added == doctest::Approx(16.0 * (f - 1.0) * t_last).epsilon(0.02));
}

TEST_CASE(
    "stragglers: representative replay gives every rank's iteration time (TP 2, PP 2, DP 2)") {
  Scenario s = inputs::load_scenario(kRoot / "scenarios/tests/tiny-pp2-tp2-dp2.yaml");
  for (const std::int64_t rank : {0, 3, 6}) {
    CAPTURE(rank);
    s.stragglers.rank = rank;
    s.stragglers.factor = 1.5;
    const Run representative = replay_scenario(s, true);
    const Run full = replay_scenario(s, true, ProgramScope::every_rank);
    CHECK(representative.result.iteration_time.seconds() ==
          doctest::Approx(full.result.iteration_time.seconds()).epsilon(0.01));
    CHECK(full.result.iteration_time > replay_scenario(s, false).result.iteration_time);
  }
}

TEST_CASE("stragglers: a layout's robustness is where one slow GPU costs most") {
  // Data parallelism: every GPU is alike, so GPU 0 and the last cost the same, (f - 1) x the
  // compute share. A pipeline: the last stage is the slowest already, so a slow GPU there
  // costs more than on stage 0, whose slack under the last stage's pace absorbs part of it.
  const Scenario dp = inputs::load_scenario(kRoot / "scenarios/tests/straggler-dp4.yaml");
  const hw::HardwareProfile hw = inputs::scenario_hardware(dp);
  const Layout dp_layout{dp.parallel, dp.training.micro_batch, dp.training.fp8};
  const StragglerRobustness d =
      straggler_robustness(dp.model, hw, dp_layout, dp.training.global_batch, 1.2);
  const Run base = replay_scenario(dp, false);
  CHECK(d.first_gpu == d.last_gpu);
  CHECK(d.cost(base.result.iteration_time) ==
        doctest::Approx(0.2 * busy(base.result.breakdown.front()).seconds() /
                        base.result.iteration_time.seconds())
            .epsilon(0.01));
  const Scenario pp = inputs::load_scenario(kRoot / "scenarios/tests/straggler-pp4.yaml");
  const Layout pp_layout{pp.parallel, pp.training.micro_batch, pp.training.fp8};
  const StragglerRobustness p =
      straggler_robustness(pp.model, hw, pp_layout, pp.training.global_batch, 1.5);
  CHECK(p.last_gpu > p.first_gpu);
  CHECK(p.worst() == p.last_gpu);
  CHECK(p.last_gpu == replay_scenario(pp, true).result.iteration_time);
  CHECK_THROWS_AS(straggler_robustness(pp.model, hw, pp_layout, 16, 0.5), std::invalid_argument);
}

TEST_CASE("stragglers: bad slowdowns are refused") {
  const Scenario s = inputs::load_scenario(kRoot / "scenarios/tests/straggler-dp4.yaml");
  const program::Program p = build_program(s, ProgramScope::representative);
  ReplayOptions options;
  options.kernel_slowdowns = {1.0, 1.2};
  CHECK_THROWS_AS(replay(p, inputs::scenario_hardware(s), options), InvalidProgram);
  options.kernel_slowdowns = {1.0, 0.5, 1.0, 1.0};
  CHECK_THROWS_AS(replay(p, inputs::scenario_hardware(s), options), InvalidProgram);
}

}  // namespace
}  // namespace trainsim::sim
