// bench_simulate: wall time of `trainsim simulate` on a scenario, split into its stages
// (load inputs, build the Program on the meta backend, replay, summarise), and the replay's
// ops per second. Usage: bench_simulate [SCENARIO.yaml] [REPETITIONS] [--no-fold]. Prints the
// median and the minimum of each stage over the repetitions, and how far the replay folded its
// nodes (sim/node_fold.hpp); --no-fold replays every node, to time the fold against it. Also
// the Program's ops by kind, and how many of its allocations and frees wait for another op or
// are waited for: the rest carry no dependency edge (what compact memory events would fold).

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/build_program.hpp"
#include "reports/summary.hpp"
#include "sim/replay.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Stats {
  double median = 0.0;
  double minimum = 0.0;
};

Stats stats(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], samples.front()};
}

/// Ops by payload kind (program::Payload's order), and the allocations and frees with
/// dependencies or dependents.
struct Census {
  std::array<std::int64_t, std::variant_size_v<trainsim::program::Payload>> by_kind{};
  std::int64_t memory = 0;
  std::int64_t memory_with_deps = 0;
  std::int64_t memory_with_dependents = 0;
};

Census census(const trainsim::program::Program& program) {
  Census c;
  for (const trainsim::program::RankProgram& rank : program.ranks) {
    std::vector<std::uint8_t> waited_for(rank.ops.size(), 0);
    for (const trainsim::program::Op& op : rank.ops) {
      for (const trainsim::program::OpIndex d : rank.deps(op))
        waited_for[static_cast<std::size_t>(d)] = 1;
    }
    for (std::size_t i = 0; i < rank.ops.size(); ++i) {
      const trainsim::program::Op& op = rank.ops[i];
      ++c.by_kind[op.payload.index()];
      if (!op.is_memory_event()) continue;
      ++c.memory;
      if (op.dep_end > op.dep_begin) ++c.memory_with_deps;
      if (waited_for[i] != 0) ++c.memory_with_dependents;
    }
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace trainsim;
  const std::filesystem::path scenario_file =
      argc > 1
          ? std::filesystem::path(argv[1])
          : std::filesystem::path(TRAINSIM_SOURCE_ROOT) / "scenarios/korthikanti2022/gpt-22b.yaml";
  const int repetitions = argc > 2 ? std::max(1, std::atoi(argv[2])) : 20;
  sim::ReplayOptions options;
  options.fold_nodes = !(argc > 3 && std::string(argv[3]) == "--no-fold");

  std::vector<double> load, build, replay, total;
  std::size_t ops = 0;
  double iteration = 0.0;
  std::int32_t fold_run = 1;
  Census counted;
  for (int i = 0; i < repetitions; ++i) {
    const auto t0 = Clock::now();
    const Scenario scenario = inputs::load_scenario(scenario_file);
    const hw::HardwareProfile hardware = inputs::scenario_hardware(scenario);
    load.push_back(seconds_since(t0));
    const auto t1 = Clock::now();
    const program::Program program = build_program(scenario, ProgramScope::representative);
    build.push_back(seconds_since(t1));
    const auto t2 = Clock::now();
    const sim::SimulationResult result = sim::replay(program, hardware, options);
    fold_run = result.fold_run;
    replay.push_back(seconds_since(t2));
    const reports::Summary summary = reports::summarize(scenario, hardware, program, result);
    total.push_back(seconds_since(t0));
    ops = program.op_count();
    iteration = summary.iteration_time.seconds();
    if (i == 0) counted = census(program);  // untimed
  }
  const Stats l = stats(load), b = stats(build), r = stats(replay), t = stats(total);
  fmt::print("scenario            {}\n", scenario_file.string());
  fmt::print("repetitions         {}\n", repetitions);
  fmt::print("ops in the Program  {}\n", ops);
  const std::array<const char*, 8> kinds{"GEMM", "kernel", "collective", "send",
                                         "recv", "alloc",  "free",       "host sync"};
  static_assert(kinds.size() == std::variant_size_v<program::Payload>);
  std::string by_kind;
  for (std::size_t k = 0; k < kinds.size(); ++k)
    by_kind += fmt::format("{}{} {}", k == 0 ? "" : ", ", kinds[k], counted.by_kind[k]);
  fmt::print("ops by kind         {}\n", by_kind);
  fmt::print("allocs and frees    {} ({:.1f} %): {} wait for another op, {} are waited for\n",
             counted.memory,
             100.0 * static_cast<double>(counted.memory) /
                 static_cast<double>(std::max<std::size_t>(ops, 1)),
             counted.memory_with_deps, counted.memory_with_dependents);
  fmt::print("predicted iteration {:.4f} s\n", iteration);
  fmt::print("nodes per replayed  {}\n", fold_run);
  fmt::print("{:<20}{:>12}{:>12}\n", "stage", "median ms", "min ms");
  fmt::print("{:<20}{:>12.3f}{:>12.3f}\n", "load inputs", l.median * 1e3, l.minimum * 1e3);
  fmt::print("{:<20}{:>12.3f}{:>12.3f}\n", "build Program", b.median * 1e3, b.minimum * 1e3);
  fmt::print("{:<20}{:>12.3f}{:>12.3f}\n", "replay", r.median * 1e3, r.minimum * 1e3);
  fmt::print("{:<20}{:>12.3f}{:>12.3f}\n", "total (simulate)", t.median * 1e3, t.minimum * 1e3);
  fmt::print("replay rate         {:.2f} million ops/s (median)\n",
             static_cast<double>(ops) / r.median * 1e-6);
  return 0;
}
