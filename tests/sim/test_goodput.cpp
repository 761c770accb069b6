// The goodput analysis (sim/analysis/goodput, checkpoint, run_goodput): the renewal model's
// closed forms against brute force and its own Monte Carlo, the checkpoint cost against hand
// arithmetic, the interval search against every whole step count.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "sim/analysis/checkpoint.hpp"
#include "sim/analysis/goodput.hpp"
#include "sim/analysis/run_goodput.hpp"

namespace trainsim::sim {
namespace {

const std::filesystem::path kRoot(TRAINSIM_SOURCE_ROOT);

/// The Llama 3 window's job: 16 384 GPUs, 419 unplanned and 47 planned interruptions in 54
/// days, a 10-minute restart, a 3-second checkpoint.
FailureModel llama_like() {
  FailureModel m;
  m.unplanned_per_s = 419.0 / (54.0 * 86400.0);
  m.planned_per_s = 47.0 / (54.0 * 86400.0);
  m.restart_s = 603.0;
  m.planned_stop_s = 426.0;
  m.checkpoint_s = 2.84;
  return m;
}

double ratio_at(double interval, const FailureModel& m) {
  return interval / expected_wall_time(interval, interval, m);
}

TEST_CASE("goodput: no interruptions leave only the checkpoints' stalls") {
  FailureModel m;
  m.checkpoint_s = 2.0;
  CHECK(expected_wall_time(1000.0, 100.0, m) == doctest::Approx(1000.0 + 10 * 2.0));
  // 1050 s of work: ten segments and a last one of 50 s, each followed by a checkpoint.
  CHECK(expected_wall_time(1050.0, 100.0, m) == doctest::Approx(1050.0 + 11 * 2.0));
  CHECK(std::isinf(optimal_interval(m)));
}

TEST_CASE("goodput: one segment's expectation is Daly's closed form") {
  FailureModel m;
  m.unplanned_per_s = 1.0 / 3600.0;
  m.restart_s = 300.0;
  m.checkpoint_s = 10.0;
  const double mtti = 3600.0;
  CHECK(expected_wall_time(600.0, 600.0, m) ==
        doctest::Approx(mtti * std::exp(300.0 / mtti) * (std::exp(610.0 / mtti) - 1.0)));
}

TEST_CASE("goodput: the exact optimum beats its neighbours and sits near Young and Daly") {
  const FailureModel m = llama_like();
  const double best = optimal_interval(m);
  const double r = ratio_at(best, m);
  CHECK(r > ratio_at(best * 0.98, m));
  CHECK(r > ratio_at(best * 1.02, m));
  // It solves e^{(τ+δ)/M}·(1 − τ/M) = 1.
  const double mtti = 1.0 / m.unplanned_per_s;
  CHECK(std::exp((best + m.checkpoint_s) / mtti) * (1.0 - best / mtti) ==
        doctest::Approx(1.0).epsilon(1e-12));
  // δ ≪ M: Young's first-order form is within a few per cent, Daly's closer.
  CHECK(young_interval(m) == doctest::Approx(best).epsilon(0.02));
  CHECK(std::abs(daly_interval(m) - best) < std::abs(young_interval(m) - best));
}

TEST_CASE("goodput: the wall time's shares add to one and the work share is the effective one") {
  const FailureModel m = llama_like();
  const double interval = 250.0;
  const WallTimeShares shares = wall_time_shares(interval, m);
  CHECK(shares.work + shares.checkpoints + shares.lost_work + shares.restarts + shares.planned ==
        doctest::Approx(1.0).epsilon(1e-12));
  CHECK(shares.work == doctest::Approx(ratio_at(interval, m)).epsilon(1e-12));
  CHECK(shares.lost_work > 0.0);
  CHECK(shares.restarts > shares.lost_work);  // a 10-minute restart against 2 minutes lost
  FailureModel quiet;
  quiet.checkpoint_s = 5.0;
  CHECK(wall_time_shares(95.0, quiet).checkpoints == doctest::Approx(0.05));
}

TEST_CASE("goodput: the Monte Carlo's mean is the closed form's within 1 % at 10^4 runs") {
  const FailureModel m = llama_like();
  const double work = 48.0 * 86400.0;
  const double interval = optimal_interval(m);
  const MonteCarloRuns runs = monte_carlo_runs(work, interval, m, 10'000, 25);
  const double expected = expected_wall_time(work, interval, m);
  CHECK(runs.mean == doctest::Approx(expected).epsilon(0.01));
  CHECK(runs.p10 < runs.p50);
  CHECK(runs.p50 < runs.p90);
  // About λ·E[T] unplanned and λ_p·E[T] planned interruptions per run.
  CHECK(runs.mean_unplanned == doctest::Approx(m.unplanned_per_s * expected).epsilon(0.02));
  CHECK(runs.mean_planned == doctest::Approx(m.planned_per_s * expected).epsilon(0.02));
}

TEST_CASE("goodput: the Monte Carlo is exact for a seed and differs between seeds") {
  const FailureModel m = llama_like();
  const MonteCarloRuns a = monte_carlo_runs(86400.0, 250.0, m, 50, 7);
  const MonteCarloRuns b = monte_carlo_runs(86400.0, 250.0, m, 50, 7);
  const MonteCarloRuns c = monte_carlo_runs(86400.0, 250.0, m, 50, 8);
  CHECK(a.wall_s == b.wall_s);
  CHECK(a.wall_s != c.wall_s);
}

TEST_CASE("goodput: a short interval against a tiny mean time to interruption still converges") {
  // Restarts longer than the mean time to interruption: many restarts begin again.
  FailureModel m;
  m.unplanned_per_s = 1.0 / 100.0;
  m.restart_s = 150.0;
  m.checkpoint_s = 1.0;
  const MonteCarloRuns runs = monte_carlo_runs(2000.0, 20.0, m, 4000, 3);
  CHECK(runs.mean == doctest::Approx(expected_wall_time(2000.0, 20.0, m)).epsilon(0.03));
}

TEST_CASE("goodput: bad figures are refused with the field") {
  FailureModel m = llama_like();
  CHECK_THROWS_WITH_AS(expected_wall_time(100.0, 0.0, m), doctest::Contains("checkpoint interval"),
                       std::invalid_argument);
  m.restart_s = -1.0;
  CHECK_THROWS_WITH_AS(m.check(), doctest::Contains("restart time"), std::invalid_argument);
  m = llama_like();
  m.planned_per_s = 1.0;
  CHECK_THROWS_WITH_AS(m.check(), doctest::Contains("planned stops"), std::invalid_argument);
  m = llama_like();
  m.checkpoint_s = 0.0;
  CHECK_THROWS_AS(optimal_interval(m), std::invalid_argument);
  CHECK_THROWS_AS(monte_carlo_runs(100.0, 10.0, llama_like(), 0, 1), std::invalid_argument);
}

TEST_CASE("checkpoint: Llama 3 405B saves 14 bytes per parameter, spread over every GPU") {
  const Scenario s = inputs::load_scenario(kRoot / "scenarios/llama3/llama3-405b.yaml");
  const CheckpointSize size = checkpoint_size(s.model, 16384, 8);
  const double params = static_cast<double>(s.model.parameters());
  CHECK(size.total.as_double() == doctest::Approx(params * 14.0));
  CHECK(size.per_gpu.as_double() == doctest::Approx(params * 14.0 / 16384.0));
  CHECK(size.per_node.as_double() == doctest::Approx(params * 14.0 / 2048.0));
  // Llama 3 §3.3.1: 1 MB to 4 GB per GPU.
  CHECK(size.per_gpu > Bytes::of(1'000'000));
  CHECK(size.per_gpu < Bytes::of(4'000'000'000));
}

TEST_CASE("checkpoint: the slowest of copy, node link and file system sets the time") {
  CheckpointSize size{Bytes::of(8'000'000'000'000), Bytes::of(1'000'000'000),
                      Bytes::of(8'000'000'000)};
  hw::CheckpointPath path;
  path.device_to_host = Bandwidth::bytes_per_second(50e9);    // 20 ms
  path.node_write = Bandwidth::bytes_per_second(50e9);        // 160 ms
  path.node_read = Bandwidth::bytes_per_second(100e9);        // 80 ms
  path.filesystem_write = Bandwidth::bytes_per_second(2e12);  // 4 s
  path.filesystem_read = Bandwidth::bytes_per_second(100e12);
  CheckpointTimes t = checkpoint_times(size, path);
  CHECK(t.write.seconds() == doctest::Approx(4.0));
  CHECK(t.write_bound == "file system");
  CHECK(t.stall == t.write);
  CHECK(t.load.seconds() == doctest::Approx(0.08));
  CHECK(t.load_bound == "node storage links");
  path.asynchronous = true;
  t = checkpoint_times(size, path);
  CHECK(t.stall.seconds() == doctest::Approx(0.02));
}

TEST_CASE("run goodput: the chosen whole step count is the best of all step counts") {
  const hw::HardwareProfile profile =
      inputs::load_hardware_profile(kRoot / "hwprofiles/dgx-h100.yaml");
  REQUIRE(profile.reliability);
  const Scenario s = inputs::load_scenario(kRoot / "scenarios/llama3/llama3-405b.yaml");
  const Time step = Time::from_seconds(8.8);
  for (const bool async : {false, true}) {
    CAPTURE(async);
    hw::ReliabilitySpec reliability = *profile.reliability;
    reliability.checkpoint.asynchronous = async;
    // A slow file system, so that an asynchronous write outlasts several steps.
    reliability.checkpoint.filesystem_write = Bandwidth::bytes_per_second(50e9);
    const RunGoodput g = run_goodput(s.model, 16384, 8, step, reliability);
    for (std::int64_t k = 1; k <= 400; ++k) {
      CAPTURE(k);
      CHECK(run_goodput_at(s.model, 16384, 8, step, reliability, k).effective <=
            g.effective + 1e-15);
    }
    CHECK(g.mtti_s == doctest::Approx(54.0 * 86400.0 / 419.0).epsilon(1e-3));
  }
}

}  // namespace
}  // namespace trainsim::sim
