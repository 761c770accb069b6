// The first floor of a layout search (sim/analysis/kernel_floor): one GPU's kernels summed
// without a replay. It must be the replay's own compute-stream time where nothing slows the
// kernels, never above a full replay, and never above the compute floor the search replays
// afterwards (time and peak), or it would prune or bound out what that floor keeps; likewise
// the tensor block's traffic floor against the reduced layout's.
#include <doctest/doctest.h>

#include <cstdio>
#include <map>
#include <string>

#include "models/build_program.hpp"
#include "sim/analysis/kernel_floor.hpp"
#include "sim/analysis/layout_estimate.hpp"
#include "sim/analysis/layout_search.hpp"
#include "sim/analysis/traffic_floor.hpp"
#include "sim/replay.hpp"
#include "sim_fixtures.hpp"

namespace trainsim::sim {
namespace {

TEST_CASE("KernelFloor: its sums are the replayed compute stream's where nothing slows it") {
  // The test profile has no interference: a replayed kernel takes its idle duration, so rank
  // 0's busy time in the replay of each of the four Programs is the sum, to the picosecond.
  const ModelSpec model = test::small_model(4);
  const hw::HardwareProfile hw = test::rail_profile();
  std::size_t compared = 0;
  for (const Layout& l : enumerate_layouts(model, 16, 16, {})) {
    if (l.plan.tensor.kind != TensorKind::one_d || l.plan.tensor.size < 2) continue;
    const Layout compute = compute_layout(l);
    const KernelFloor floor(model, compute, hw);
    for (std::int64_t layers = 1; layers <= 2; ++layers) {
      for (std::int64_t micro_batches = 1; micro_batches <= 2; ++micro_batches) {
        const program::Program program =
            reduced_program(model, compute, layers, micro_batches, hw.node.gpus);
        ReplayOptions options;
        options.record_op_timings = false;
        const SimulationResult result = replay(program, hw, options);
        const TimeBreakdown& b = result.breakdown.front();
        const double busy = (b.compute + b.recompute + b.optimizer).seconds();
        INFO(describe(compute), " l=", layers, " m=", micro_batches);
        CHECK(floor.busy().at(static_cast<double>(layers), static_cast<double>(micro_batches)) ==
              doctest::Approx(busy).epsilon(1e-12));
      }
    }
    if (++compared == 6) break;
  }
  CHECK(compared == 6);
}

namespace {
// Every layout of a 4-layer model on 16 GPUs (two nodes of 8) at batch 16, 1D, 2D, 2.5D and
// 3D tensor blocks, on `hw`: the kernel floor's time is at most the compute floor's (the
// busiest GPU's replayed kernels, or the replay) and the full replay's; its peak, from rank
// 0's allocations in issue order, at most the compute floor's, from the replayed timelines.
// The tensor block's traffic floor (its compute layout tallied) is at most the reduced
// layout's. Together: the floors the search takes first never exceed those it took before
// them, so an estimate raised to the larger floor is what it was.
void check_first_floors(const hw::HardwareProfile& hw, const char* what) {
  const ModelSpec model = test::small_model(4);
  LayoutSpaceOptions space;
  space.max_micro_batch = 2;
  std::map<std::string, std::pair<KernelFloor, ReducedFit>> fits;
  std::map<std::string, TrafficFloor> traffic;
  const auto traffic_of = [&](const Layout& l) -> const TrafficFloor& {
    auto it = traffic.find(describe(l));
    if (it == traffic.end()) it = traffic.emplace(describe(l), TrafficFloor(model, l, hw)).first;
    return it->second;
  };
  std::size_t layouts = 0;
  std::size_t equal_peaks = 0;
  double tightest = 0.0;
  std::string tightest_layout;
  for (const Layout& l : enumerate_layouts(model, 16, 16, space)) {
    const Layout compute = compute_layout(l);
    auto it = fits.find(describe(compute));
    if (it == fits.end()) {
      it = fits.emplace(describe(compute),
                        std::pair{KernelFloor(model, compute, hw), ReducedFit(model, compute, hw)})
               .first;
    }
    const LayoutEstimate kernels = it->second.first.floor(model, l, 16);
    const LayoutEstimate replayed_alone = it->second.second.compute_floor(model, l, 16);
    INFO(what, ": ", describe(l));
    CHECK(kernels.iteration <= replayed_alone.iteration);
    CHECK(kernels.peak <= replayed_alone.peak);
    equal_peaks += kernels.peak == replayed_alone.peak ? 1 : 0;
    CHECK(traffic_of(compute).floor(model, l, 16) <=
          traffic_of(reduced_layout(l)).floor(model, l, 16));
    // The full replay, on a sample (every fourth layout: they cost most of the test).
    if (layouts++ % 4 == 0) {
      const double full = replay_layout(model, hw, l, 16).iteration.seconds();
      CHECK(kernels.iteration.seconds() <= full);
      if (kernels.iteration.seconds() / full > tightest) {
        tightest = kernels.iteration.seconds() / full;
        tightest_layout = describe(l);
      }
    }
  }
  std::printf(
      "kernel floor (%s), %zu layouts on 16 GPUs: %zu peaks equal to the compute floor's; vs "
      "the full replay, tightest %.2f (%s)\n",
      what, layouts, equal_peaks, tightest, tightest_layout.c_str());
  CHECK(layouts > 100);
  CHECK(fits.size() > 10);
  // Most peaks are the compute floor's exactly (issue order and the replay agree), and the
  // time floor is not vacuous.
  CHECK(equal_peaks * 2 > layouts);
  CHECK(tightest > 0.5);
}
}  // namespace

TEST_CASE("KernelFloor: below the compute floor and the full replay of every layout on two nodes") {
  check_first_floors(test::rail_profile(), "no interference");
  // Kernels slowed by concurrent communication and communication by concurrent kernels, as
  // the shipped H100 and B200 profiles have them: the replayed busy time exceeds the sums.
  hw::HardwareProfile slowed = test::rail_profile();
  slowed.compute_slowdown_during_comm = 0.15;
  slowed.comm_slowdown_during_compute = 1.5;
  check_first_floors(slowed, "interference");
}

}  // namespace
}  // namespace trainsim::sim
