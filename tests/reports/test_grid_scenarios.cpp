// The 2D, 2.5D and 3D test scenarios simulate end to end on every shipped hardware profile,
// and one recorded grid (or cube) standing for the others gives what recording every GPU
// gives.
#include <doctest/doctest.h>

#include <cstddef>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "reports/scenario_run.hpp"
#include "units/doctest_printers.hpp"

using namespace trainsim;

namespace {

std::set<std::filesystem::path> shipped_profiles() {
  std::set<std::filesystem::path> profiles;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(TRAINSIM_SOURCE_ROOT) / "hwprofiles")) {
    if (entry.path().extension() == ".yaml") profiles.insert(entry.path());
  }
  return profiles;
}

}  // namespace

TEST_CASE("2D/2.5D/3D scenarios simulate on every shipped profile and representative = full") {
  const std::filesystem::path root = TRAINSIM_SOURCE_ROOT;
  const std::set<std::filesystem::path> profiles = shipped_profiles();
  REQUIRE(profiles.size() >= 6);
  for (const std::string name :
       {"tiny-2d-dp2", "tiny-2p5d", "tiny-2d-q4", "tiny-3d", "tiny-3d-dp2-zero1"}) {
    const Scenario scenario = inputs::load_scenario(root / "scenarios/tests" / (name + ".yaml"));
    CHECK(scenario.parallel.tensor.kind != TensorKind::one_d);
    for (const std::filesystem::path& file : profiles) {
      CAPTURE(name);
      CAPTURE(file.stem().string());
      const hw::HardwareProfile hardware = inputs::load_hardware_profile(file);
      const reports::ScenarioRun one = reports::run_scenario(scenario, hardware);
      const reports::ScenarioRun all =
          reports::run_scenario(scenario, hardware, ProgramScope::every_rank);
      CHECK(one.summary.iteration_time > Time::zero());
      CHECK(one.summary.iteration_time == all.summary.iteration_time);
      CHECK(one.summary.memory.peak == all.summary.memory.peak);
      // An unpadded vocabulary: the GEMMs are exactly the model's (and its recomputation's).
      CHECK(one.summary.hardware_flops ==
            scenario.model.hardware_flops(scenario.training.global_batch,
                                          scenario.parallel.recompute));
      // One q x q grid (3D: the q³ cube) recorded; every GPU in the full replay.
      const TensorParallel& t = scenario.parallel.tensor;
      CHECK(one.program.ranks.size() == static_cast<std::size_t>(t.size / t.depth));
      CHECK(all.program.ranks.size() == static_cast<std::size_t>(scenario.gpus));
    }
  }
}

TEST_CASE("a 64-GPU 3D GPT (4 x 4 x 4 cube) simulates on every shipped profile") {
  // DP 1: the representative replay records the whole cube, as the full one does.
  const Scenario scenario = inputs::load_scenario(std::filesystem::path(TRAINSIM_SOURCE_ROOT) /
                                                  "scenarios/tests/gpt-3d-q4.yaml");
  REQUIRE(scenario.parallel.tensor.kind == TensorKind::three_d);
  for (const std::filesystem::path& file : shipped_profiles()) {
    CAPTURE(file.stem().string());
    const reports::ScenarioRun run =
        reports::run_scenario(scenario, inputs::load_hardware_profile(file));
    CHECK(run.program.ranks.size() == 64);
    CHECK(run.summary.iteration_time > Time::zero());
    CHECK(run.summary.hardware_flops == scenario.model.model_flops(scenario.training.global_batch));
  }
}

TEST_CASE("2D: a SUMMA step's row and column broadcasts travel at the same time") {
  // Row and column groups are separate NCCL communicators with their own streams (Optimus,
  // ColossalAI), so the first forward GEMM's two panel broadcasts overlap instead of
  // the column broadcast queueing behind the row broadcast.
  const std::filesystem::path root = TRAINSIM_SOURCE_ROOT;
  const reports::ScenarioRun run =
      reports::run_scenario_file(root / "scenarios/tests/tiny-2d-q4.yaml");
  const program::RankProgram& rank = run.program.ranks.front();
  const sim::RankTimeline& timeline = run.result.timelines.front();
  const program::Op* row = nullptr;
  const program::Op* column = nullptr;
  std::size_t row_index = 0, column_index = 0;
  for (std::size_t i = 0; i < rank.ops.size() && (row == nullptr || column == nullptr); ++i) {
    const program::Op& op = rank.ops[i];
    if (!std::holds_alternative<program::Collective>(op.payload)) continue;
    const std::string_view name = run.program.names.name(op.name);
    if (row == nullptr && name.ends_with(".row_broadcast")) {
      row = &op;
      row_index = i;
    }
    if (column == nullptr && name.ends_with(".column_broadcast")) {
      column = &op;
      column_index = i;
    }
  }
  REQUIRE(row != nullptr);
  REQUIRE(column != nullptr);
  CHECK(row->stream == program::Stream::tp);
  CHECK(column->stream == program::Stream::tp_column);
  const sim::OpTiming& r = timeline.ops[row_index];
  const sim::OpTiming& c = timeline.ops[column_index];
  // On one shared stream the column broadcast would start only once the row broadcast ended.
  CHECK(c.start < r.end);
  CHECK(r.start < c.end);
}

TEST_CASE("2D: a SUMMA step's GEMM reuses the partial buffer of two steps before, once reduced") {
  // ColossalAI's Matmul_ABT_2D / Matmul_ATB_2D keep two partial-product buffers: the GEMM of
  // step l overwrites step l - 2's, so it starts only after that step's reduction ended.
  const std::filesystem::path root = TRAINSIM_SOURCE_ROOT;
  const reports::ScenarioRun run =
      reports::run_scenario_file(root / "scenarios/tests/tiny-2d-q4.yaml");
  const program::RankProgram& rank = run.program.ranks.front();
  const sim::RankTimeline& timeline = run.result.timelines.front();
  std::string reduce_name;
  for (const program::Op& op : rank.ops) {
    const std::string_view name = run.program.names.name(op.name);
    if (std::holds_alternative<program::Collective>(op.payload) && name.ends_with(".row_reduce")) {
      reduce_name = std::string(name);
      break;
    }
  }
  REQUIRE(!reduce_name.empty());
  const std::string gemm_name = reduce_name.substr(0, reduce_name.size() - 11);
  std::vector<sim::OpTiming> gemms, reduces;
  for (std::size_t i = 0; i < rank.ops.size(); ++i) {
    const program::Op& op = rank.ops[i];
    const std::string_view name = run.program.names.name(op.name);
    if (std::holds_alternative<program::Gemm>(op.payload) && name == gemm_name && gemms.size() < 4)
      gemms.push_back(timeline.ops[i]);
    if (name == reduce_name && reduces.size() < 4) reduces.push_back(timeline.ops[i]);
  }
  REQUIRE(gemms.size() == 4);  // q = 4 steps
  REQUIRE(reduces.size() == 4);
  for (std::size_t l = 2; l < 4; ++l) {
    CAPTURE(l);
    CHECK(gemms[l].start >= reduces[l - 2].end);
  }
}

TEST_CASE("3D: a Linear3D's input and weight all-gathers travel at the same time") {
  // The cube's input, weight and output groups are separate communicators (ColossalAI's
  // parallel_3d process groups), each with its own stream: the first forward linear's input
  // all-gather (crossing nodes in the weight-major cube) and its weight all-gather (inside a
  // node) overlap, the GEMM waits for both, and the output reduce-scatter for the GEMM.
  const std::filesystem::path root = TRAINSIM_SOURCE_ROOT;
  const reports::ScenarioRun run =
      reports::run_scenario_file(root / "scenarios/tests/gpt-3d-q4.yaml");
  const program::RankProgram& rank = run.program.ranks.front();
  const sim::RankTimeline& timeline = run.result.timelines.front();
  std::ptrdiff_t input = -1, weight = -1, gemm = -1, output = -1;
  for (std::size_t i = 0; i < rank.ops.size() && output < 0; ++i) {
    const program::Op& op = rank.ops[i];
    if (op.tag.layer != 0 || op.tag.phase != program::Phase::forward || op.is_memory_event()) {
      continue;
    }
    const std::string_view name = run.program.names.name(op.name);
    const auto at = static_cast<std::ptrdiff_t>(i);
    if (input < 0 && name.ends_with(".input.all_gather")) input = at;
    if (input >= 0 && weight < 0 && name.ends_with(".weight.all_gather")) weight = at;
    if (weight >= 0 && gemm < 0 && std::holds_alternative<program::Gemm>(op.payload)) gemm = at;
    if (gemm >= 0 && name.ends_with(".output.reduce_scatter")) output = at;
  }
  REQUIRE(output >= 0);
  const auto op = [&](std::ptrdiff_t i) { return rank.ops[static_cast<std::size_t>(i)]; };
  const auto when = [&](std::ptrdiff_t i) { return timeline.ops[static_cast<std::size_t>(i)]; };
  CHECK(op(input).stream == program::Stream::tp);
  CHECK(op(weight).stream == program::Stream::tp_weight);
  CHECK(op(output).stream == program::Stream::tp_output);
  // On one shared stream the weight all-gather would start only once the input one ended.
  CHECK(when(weight).start < when(input).end);
  CHECK(when(input).start < when(weight).end);
  CHECK(when(gemm).start >= when(input).end);
  CHECK(when(gemm).start >= when(weight).end);
  CHECK(when(output).start >= when(gemm).end);
}
