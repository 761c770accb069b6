// Inference mode end to end (memory, summary, max batch) and the tensor-scheme comparison
// library behind `trainsim compare`.
#include <doctest/doctest.h>

#include <filesystem>
#include <stdexcept>
#include <variant>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "reports/analyses/scheme_comparison.hpp"
#include "reports/analyses/scheme_comparison_report.hpp"
#include "reports/json_report.hpp"
#include "reports/program_measures.hpp"
#include "reports/scenario_run.hpp"
#include "reports/summary_table.hpp"
#include "units/doctest_printers.hpp"

using namespace trainsim;

namespace {

const std::filesystem::path kRoot = TRAINSIM_SOURCE_ROOT;

Scenario load(const char* name) {
  return inputs::load_scenario(kRoot / "scenarios/tests" / (std::string(name) + ".yaml"));
}

hw::HardwareProfile profile_of(const Scenario& s) {
  return inputs::load_hardware_profile(s.hardware_file);
}

Bytes at(const reports::MemorySummary& m, program::MemoryCategory c) {
  return m.at_peak[static_cast<std::size_t>(c)];
}

}  // namespace

TEST_CASE("inference: the peak is the weights plus the live forward activations") {
  using program::MemoryCategory;
  Scenario infer = load("tiny-inference");
  const hw::HardwareProfile hardware = profile_of(infer);
  Scenario train = infer;
  train.training.mode = RunMode::training;
  const reports::ScenarioRun i = reports::run_scenario(infer, hardware);
  const reports::ScenarioRun t = reports::run_scenario(train, hardware);
  CHECK(i.summary.iteration_time < t.summary.iteration_time);
  CHECK(i.summary.memory.peak < t.summary.memory.peak);
  const reports::MemorySummary& m = i.summary.memory;
  CHECK(at(m, MemoryCategory::parameters) == at(t.summary.memory, MemoryCategory::parameters));
  CHECK(at(m, MemoryCategory::gradients) == Bytes::zero());
  CHECK(at(m, MemoryCategory::optimizer_state) == Bytes::zero());
  CHECK(at(m, MemoryCategory::activations) == Bytes::zero());
  // Nothing is kept from layer to layer: twice the layers, twice the weights, the same live
  // forward activations on top.
  Scenario deeper = infer;
  deeper.model.layers *= 2;
  const reports::ScenarioRun d = reports::run_scenario(deeper, hardware);
  const Bytes weights = at(m, MemoryCategory::parameters);
  const Bytes deeper_weights = at(d.summary.memory, MemoryCategory::parameters);
  CHECK(deeper_weights > weights);
  CHECK(d.summary.memory.peak - deeper_weights == m.peak - weights);
  // Model FLOPs are the forward's: a third of training's.
  CHECK(i.summary.model_flops * 3.0 == t.summary.model_flops);
  CHECK(i.summary.mode == RunMode::inference);
  CHECK(reports::to_json(infer, i.summary)["mode"] == "inference");
  CHECK(reports::to_json(train, t.summary)["mode"] == "training");
  const std::string text = reports::format_summary(infer, hardware, i.summary);
  CHECK(text.find("inference step") != std::string::npos);
  CHECK(text.find("forward + backward") == std::string::npos);
}

TEST_CASE("inference on 2D and 2.5D grids: one recorded grid stands for the others") {
  for (const char* name : {"tiny-2d-dp2", "tiny-2p5d", "tiny-2p5d-zero3"}) {
    CAPTURE(name);
    Scenario s = load(name);
    s.training.mode = RunMode::inference;
    s.parallel.recompute = Recompute::none;
    s.parallel.data.zero = 0;
    const hw::HardwareProfile hardware = profile_of(s);
    const reports::ScenarioRun one = reports::run_scenario(s, hardware);
    const reports::ScenarioRun all = reports::run_scenario(s, hardware, ProgramScope::every_rank);
    CHECK(one.summary.iteration_time > Time::zero());
    CHECK(one.summary.iteration_time == all.summary.iteration_time);
    CHECK(one.summary.memory.peak == all.summary.memory.peak);
    // No padding, no recomputation: the GEMMs are exactly the model's forward.
    CHECK(one.summary.hardware_flops == s.model.forward_flops(s.training.global_batch));
  }
}

TEST_CASE("max batch: inference fits more than training, and 2D searches multiples of q") {
  Scenario train = load("tiny-compare");
  hw::HardwareProfile hardware = profile_of(train);
  // A memory small enough that activations matter for this tiny model.
  const reports::ScenarioRun base = reports::run_scenario(train, hardware);
  hardware.gpu.memory = base.summary.memory.peak * 4;
  Scenario infer = train;
  infer.training.mode = RunMode::inference;
  infer.parallel.tensor.sequence_parallel = false;
  const sim::MaxBatchResult t = sim::find_max_batch(train, hardware);
  const sim::MaxBatchResult i = sim::find_max_batch(infer, hardware);
  CHECK(t.micro_batch > 0);
  CHECK(i.micro_batch > t.micro_batch);

  Scenario grid = train;
  grid.parallel.tensor.kind = TensorKind::two_d;
  grid.parallel.tensor.sequence_parallel = false;
  const sim::MaxBatchResult g = sim::find_max_batch(grid, hardware);
  CHECK(g.micro_batch_step == 2);
  CHECK(g.micro_batch > 0);
  CHECK(g.micro_batch % 2 == 0);
  for (const sim::BatchProbe& p : g.probes)
    CHECK(p.micro_batch % 2 == 0);
}

TEST_CASE("compare: 1d vs 2d vs 2.5d on a 4-GPU block") {
  const Scenario scenario = load("tiny-compare");
  const hw::HardwareProfile hardware = profile_of(scenario);
  const std::vector<reports::TensorVariant> variants = reports::parse_tensor_variants("1d,2d,2.5d");
  const std::vector<reports::SchemeResult> rows =
      reports::compare_tensor_schemes(scenario, hardware, variants);
  REQUIRE(rows.size() == 3);
  const reports::SchemeResult& one = rows[0];
  const reports::SchemeResult& two = rows[1];
  const reports::SchemeResult& half = rows[2];
  CHECK(one.layout == "t=4");
  CHECK(two.layout == "q=2");
  CHECK(two.plan.tensor.kind == TensorKind::two_d);
  CHECK(two.plan.tensor.grid_side() == 2);
  CHECK(two.plan.tensor.size == 4);
  CHECK(two.plan.data.size == scenario.parallel.data.size);
  // The scenario's sequence parallelism stays on 1d only.
  CHECK(one.plan.tensor.sequence_parallel);
  CHECK_FALSE(two.plan.tensor.sequence_parallel);
  REQUIRE(two.notes.size() == 1);
  CHECK(two.notes.front().find("sequence parallelism off") != std::string::npos);
  for (const reports::SchemeResult* r : {&one, &two}) {
    CAPTURE(r->name);
    REQUIRE_FALSE(r->problem);
    REQUIRE(r->step_time);
    REQUIRE(r->inference_time);
    CHECK(*r->inference_time < *r->step_time);
    CHECK(r->inference_peak_memory < r->peak_memory);
    REQUIRE(r->max_batch);
    CHECK(r->max_batch->micro_batch > 0);
    REQUIRE(r->step_speedup);
    CHECK(*r->step_speedup == doctest::Approx(*one.step_time / *r->step_time));
    CHECK(*r->inference_speedup == doctest::Approx(*one.inference_time / *r->inference_time));
    CHECK(*r->max_batch_ratio == doctest::Approx(static_cast<double>(r->max_batch->global_batch) /
                                                 static_cast<double>(one.max_batch->global_batch)));
  }
  CHECK(*one.step_speedup == 1.0);
  // 2.5d: no depth d >= 2 with 4 / d a square of q >= 2.
  REQUIRE(half.problem);
  CHECK(half.problem->find("--depth") != std::string::npos);
  CHECK_FALSE(half.step_time);
  CHECK_FALSE(half.step_speedup);

  const std::string table = reports::format_scheme_table(scenario, hardware, rows);
  CHECK(table.find("cannot run") != std::string::npos);
  const nlohmann::ordered_json j = reports::schemes_to_json(scenario, hardware, rows);
  CHECK(j["baseline"] == "1d");
  REQUIRE(j["schemes"].size() == 3);
  for (const char* key : {"scheme", "layout", "plan", "feasible", "problem", "notes", "step_time_s",
                          "inference_time_s", "tokens_per_s", "max_global_batch", "step_speedup",
                          "inference_speedup", "max_batch_ratio"}) {
    CAPTURE(key);
    CHECK(j["schemes"][0].contains(key));
  }
  CHECK(j["schemes"][2]["feasible"] == false);
  CHECK(j["schemes"][2]["step_time_s"].is_null());
  // Deterministic.
  const std::vector<reports::SchemeResult> again =
      reports::compare_tensor_schemes(scenario, hardware, variants);
  CHECK(reports::schemes_to_json(scenario, hardware, again).dump() == j.dump());
}

TEST_CASE("compare: a grid the model cannot split is a row with the reason") {
  Scenario scenario = load("tiny-compare");
  scenario.model.heads = 2;
  scenario.model.hidden = 66;  // not divisible by q² = 4
  scenario.model.ffn = 264;
  const hw::HardwareProfile hardware = profile_of(scenario);
  const std::vector<reports::TensorVariant> variants = reports::parse_tensor_variants("1d,2d");
  reports::CompareOptions options;
  options.max_batch = false;
  const std::vector<reports::SchemeResult> rows =
      reports::compare_tensor_schemes(scenario, hardware, variants, options);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].problem.has_value());  // heads 2 over t = 4
  REQUIRE(rows[1].problem);
  CHECK(rows[1].problem->find("model.hidden") != std::string::npos);
  CHECK_FALSE(rows[1].step_speedup);  // no baseline either
}

TEST_CASE("compare: scheme list parsing and the default 2.5D depth") {
  CHECK(reports::parse_tensor_variants("2d").size() == 1);
  const auto v = reports::parse_tensor_variants("1d,2.5d", 3);
  REQUIRE(v.size() == 2);
  CHECK(v[1].kind == TensorKind::two_and_half_d);
  CHECK(v[1].depth == 3);
  CHECK_FALSE(v[0].depth);
  CHECK_THROWS_WITH_AS(reports::parse_tensor_variants("1d,4d"),
                       doctest::Contains("unknown tensor scheme \"4d\"; valid: 1d, 2d, 2.5d"),
                       std::invalid_argument);
  CHECK_THROWS_AS(reports::parse_tensor_variants("1d,1d"), std::invalid_argument);
  CHECK_THROWS_AS(reports::parse_tensor_variants(""), std::invalid_argument);
  CHECK(reports::default_depth(64) == 4);
  CHECK(reports::default_depth(32) == 2);
  CHECK(reports::default_depth(16) == 4);
  CHECK(reports::default_depth(8) == 2);
  CHECK(reports::default_depth(18) == 2);
  CHECK_FALSE(reports::default_depth(4));
  CHECK_FALSE(reports::default_depth(9));
}

TEST_CASE("compare: from a 1D scenario the 3D cube runs in its own order") {
  // A 1D scenario carries the loader's default order (row-major), which a cube does not have:
  // the 3D row must take the cube's default order and run, not report a grid-order problem.
  Scenario scenario = load("tiny-3d");
  scenario.parallel.tensor.kind = TensorKind::one_d;
  scenario.parallel.tensor.grid_order = default_grid_order(TensorKind::one_d);
  const std::vector<reports::TensorVariant> variants =
      reports::parse_tensor_variants("2d,3d");  // 2d: size 8 is not a square
  reports::CompareOptions options;
  options.max_batch = false;
  const std::vector<reports::SchemeResult> rows =
      reports::compare_tensor_schemes(scenario, profile_of(scenario), variants, options);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].problem.has_value());
  CHECK_FALSE(rows[1].problem.has_value());
  CHECK(rows[1].plan.tensor.grid_order == GridOrder::weight_major);
  CHECK(rows[1].layout == "q=2 cube");
  REQUIRE(rows[1].step_time.has_value());
  // Forward + backward is the step without the optimizer.
  REQUIRE(rows[1].forward_backward_time.has_value());
  CHECK(*rows[1].forward_backward_time > Time::zero());
  CHECK(*rows[1].forward_backward_time < *rows[1].step_time);
}

TEST_CASE("compare: a 2.5D scenario keeps its own depth unless --depth says otherwise") {
  // 32 GPUs as 8 stacked 2 x 2 grids; the default rule alone would pick q = 4, d = 2.
  Scenario scenario = load("tiny-2p5d");
  scenario.gpus = 32;
  scenario.parallel.tensor.size = 32;
  scenario.parallel.tensor.depth = 8;
  scenario.training.micro_batch = 16;
  scenario.training.global_batch = 16;
  REQUIRE(reports::default_depth(32) == 2);
  reports::CompareOptions options;
  options.max_batch = false;
  const hw::HardwareProfile hardware = profile_of(scenario);
  const auto own = reports::compare_tensor_schemes(scenario, hardware,
                                                   reports::parse_tensor_variants("2.5d"), options);
  REQUIRE(own.size() == 1);
  CHECK(own[0].plan.tensor.depth == 8);
  CHECK(own[0].notes.empty());
  const auto given = reports::compare_tensor_schemes(
      scenario, hardware, reports::parse_tensor_variants("2.5d", 2), options);
  CHECK(given[0].plan.tensor.depth == 2);
  REQUIRE(given[0].notes.size() == 1);
  CHECK(given[0].notes[0] == "depth 8 → 2");
}

TEST_CASE("forward + backward time: all of an inference step, a training step less its optimizer") {
  const Scenario training = load("tiny-tp2-dp2");
  const reports::ScenarioRun run = reports::run_scenario(training, profile_of(training));
  const Time passes = reports::forward_backward_time(run.program, run.result);
  CHECK(passes > Time::zero());
  CHECK(passes < run.result.iteration_time);
  const reports::ScenarioRun inference =
      reports::run_scenario_file(kRoot / "scenarios/tests/tiny-inference.yaml");
  // The passes span the step from its first op, which starts once the host has issued it
  // (selene's host section).
  Time first = Time::max();
  const program::RankProgram& rank0 = inference.program.ranks.front();
  for (std::size_t i = 0; i < rank0.ops.size(); ++i) {
    if (!rank0.ops[i].is_memory_event())
      first = std::min(first, inference.result.timelines.front().ops[i].start);
  }
  CHECK(first > Time::zero());
  CHECK(reports::forward_backward_time(inference.program, inference.result) + first ==
        inference.result.iteration_time);
}

TEST_CASE("forward + backward time and the critical GPU pass over host syncs that never ran") {
  // 1F1B: the host synchronizes after every p2p call, reads the norm and the loss. Without a
  // host section in the profile the replay passes over those HostSyncs, whose timing stays
  // "not run" (Time::max()): no measure may take it for an end.
  const Scenario pipeline = load("tiny-pp2-tp2-dp2");
  const reports::ScenarioRun run = reports::run_scenario(pipeline, profile_of(pipeline));
  std::size_t syncs = 0;
  for (const program::RankProgram& r : run.program.ranks) {
    for (const program::Op& op : r.ops)
      syncs += std::holds_alternative<program::HostSync>(op.payload) ? 1 : 0;
  }
  REQUIRE(syncs > 0);
  const Time passes = reports::forward_backward_time(run.program, run.result);
  CHECK(passes > Time::zero());
  CHECK(passes < run.result.iteration_time);
  Time critical_end = Time::zero();
  for (const sim::RankTimeline& t : run.result.timelines) {
    if (t.rank != run.summary.critical_rank) continue;
    for (const sim::OpTiming& op : t.ops) {
      if (op.end != Time::max()) critical_end = std::max(critical_end, op.end);
    }
  }
  CHECK(critical_end == run.result.iteration_time);
}

TEST_CASE("compare: a pipelined 1d scenario gets 2d, 2.5d and 3d rows") {
  // tiny-compare-pp2 is a 1d block of 8 x PP 2; with a block of 4 it has a 2d row too. The
  // grid and cube blocks run inside the stages, in training and in inference.
  Scenario four = load("tiny-compare-pp2");
  four.parallel.tensor.size = 4;
  four.gpus = 8;
  const hw::HardwareProfile hardware = profile_of(four);
  const reports::CompareOptions no_search{false};
  for (const auto& [scenario, list] :
       {std::pair<Scenario, const char*>{four, "1d,2d"},
        std::pair<Scenario, const char*>{load("tiny-compare-pp2"), "1d,2.5d,3d"}}) {
    CAPTURE(list);
    const std::vector<reports::SchemeResult> rows = reports::compare_tensor_schemes(
        scenario, hardware, reports::parse_tensor_variants(list), no_search);
    for (const reports::SchemeResult& r : rows) {
      CAPTURE(r.name);
      CHECK_FALSE(r.problem);
      CHECK(r.plan.pipeline.size == 2);
      REQUIRE(r.step_time);
      CHECK(*r.step_time > Time::zero());
      REQUIRE(r.inference_time);
      CHECK(*r.inference_time > Time::zero());
      CHECK(*r.inference_time < *r.step_time);
      REQUIRE(r.step_speedup);
    }
  }
}
