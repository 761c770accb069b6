#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/analysis/isoefficiency.hpp"
#include "sim_fixtures.hpp"

using namespace trainsim;

namespace {

Scenario tiny_1d(std::int64_t p) {
  Scenario s;
  s.name = "tiny-iso";
  s.gpus = p;
  s.model.layers = 1;
  s.model.hidden = 256;
  s.model.heads = 8;
  s.model.ffn = 1024;
  s.model.seq_len = 256;
  s.model.vocab = 1024;
  s.model.vocab_divisor = 1;
  s.parallel.tensor.size = p;
  s.training.global_batch = 4;
  s.training.micro_batch = 4;
  return s;
}

// Communication and memory traffic cost nothing and every GEMM runs at the peak whatever its
// shape (one-element tiles, one CTA per wave): T_p is exactly T_1/p, up to picosecond rounding.
hw::HardwareProfile free_communication_profile() {
  hw::HardwareProfile hw = test::small_profile();
  hw.gpu.sm_count = 1;
  hw.gpu.gemm.tile_m = 1;
  hw.gpu.gemm.tile_n = 1;
  hw.gpu.memory_bandwidth = Bandwidth::gb_per_s(1e12);
  hw.gpu.memory_efficiency = 1.0;
  hw.node.gpus = 64;
  hw.node.gpu_bandwidth = Bandwidth::gb_per_s(1e12);
  hw.node.latency = Time::zero();
  hw.network.nic_bandwidth = Bandwidth::gb_per_s(1e12);
  hw.network.latency = Time::zero();
  hw.collectives.base_latency = Time::zero();
  hw.collectives.intra_node_efficiency = hw::EfficiencyCurve::constant(1.0);
  hw.collectives.inter_node_efficiency = hw::EfficiencyCurve::constant(1.0);
  return hw;
}

}  // namespace

TEST_CASE("isoefficiency: free communication gives E = 1 at every p, so the smallest size") {
  const hw::HardwareProfile hw = free_communication_profile();
  sim::IsoSearch search;
  search.target = 0.99;
  search.max_size = 4096;
  for (const std::int64_t p : {2, 4, 8}) {
    CAPTURE(p);
    const sim::IsoPoint point = sim::find_isoefficient_size(tiny_1d(p), hw, search);
    CHECK(point.efficiency == doctest::Approx(1.0).epsilon(1e-3));
    CHECK(point.size == point.step);
    CHECK(point.step == 8);  // the heads: 1D asks nothing more of the hidden size
  }
  search.axis = sim::IsoAxis::batch;
  const sim::IsoPoint point = sim::find_isoefficient_size(tiny_1d(4), hw, search);
  CHECK(point.size == 1);
  CHECK(point.efficiency == doctest::Approx(1.0).epsilon(1e-3));
}

TEST_CASE("isoefficiency: on a real profile 1D efficiency grows with the hidden size") {
  const hw::HardwareProfile hw = test::small_profile();
  const Scenario s = tiny_1d(4);
  double previous = 0.0;
  for (const std::int64_t h : {256, 512, 1024, 2048, 4096}) {
    CAPTURE(h);
    const sim::IsoProbe probe = sim::evaluate_efficiency(s, hw, sim::IsoAxis::hidden, h);
    CHECK(probe.efficiency > previous);
    CHECK(probe.efficiency < 1.0);
    previous = probe.efficiency;
  }
}

TEST_CASE("isoefficiency: the search returns the first size on the grid at the target") {
  const hw::HardwareProfile hw = test::small_profile();
  const Scenario s = tiny_1d(4);
  sim::IsoSearch search;
  search.target = 0.5;
  search.max_size = 8192;
  const sim::IsoPoint point = sim::find_isoefficient_size(s, hw, search);
  REQUIRE(point.size > point.step);
  CHECK(point.efficiency >= search.target);
  CHECK(point.size % point.step == 0);
  const sim::IsoProbe below =
      sim::evaluate_efficiency(s, hw, sim::IsoAxis::hidden, point.size - point.step);
  CHECK(below.efficiency < search.target);
  Scenario at = s;
  at.model.hidden = point.size;
  at.model.ffn = 4 * point.size;
  CHECK(point.work == at.model.model_flops(s.training.micro_batch));
}

TEST_CASE("isoefficiency: a target outside (0, 1) and an unreachable target are errors") {
  const hw::HardwareProfile hw = test::small_profile();
  sim::IsoSearch search;
  for (const double bad : {0.0, 1.0, -0.5, 1.5}) {
    search.target = bad;
    CHECK_THROWS_AS(sim::find_isoefficient_size(tiny_1d(4), hw, search), std::invalid_argument);
  }
  search.target = 0.95;
  search.max_size = 64;
  try {
    (void)sim::find_isoefficient_size(tiny_1d(4), hw, search);
    FAIL("expected TargetUnreachable");
  } catch (const sim::TargetUnreachable& e) {
    const std::string message = e.what();
    CHECK(message.find("1d on 4 GPUs") != std::string::npos);
    CHECK(message.find("below the target 0.95") != std::string::npos);
    CHECK(e.best_efficiency() > 0.0);
    CHECK(e.best_efficiency() < 0.95);
  }
}

TEST_CASE("isoefficiency: the power-law fit recovers a known exponent") {
  const std::vector<double> ps = {4, 16, 64, 256};
  std::vector<double> ws;
  for (const double p : ps)
    ws.push_back(3.0 * std::pow(p, 1.5));
  const sim::PowerFit fit = sim::fit_power_law(ps, ws);
  CHECK(fit.exponent == doctest::Approx(1.5));
  CHECK(fit.coefficient == doctest::Approx(3.0));
  CHECK(fit.points == 4);
  // With a log factor the slope lies between the pure powers.
  std::vector<double> with_log;
  for (const double p : ps)
    with_log.push_back(std::pow(std::sqrt(p) * std::log2(p), 3.0));
  const double k = sim::fit_power_law(ps, with_log).exponent;
  CHECK(k > 1.5);
  CHECK(k < 3.0);
  CHECK_THROWS_AS(sim::fit_power_law(std::vector<double>{4}, std::vector<double>{1}),
                  std::invalid_argument);
  CHECK_THROWS_AS(sim::fit_power_law(std::vector<double>{4, 4}, std::vector<double>{1, 2}),
                  std::invalid_argument);
  CHECK_THROWS_AS(sim::fit_power_law(std::vector<double>{4, 8}, std::vector<double>{1, 0}),
                  std::invalid_argument);
}

TEST_CASE("isoefficiency: device counts per scheme") {
  using V = std::vector<std::int64_t>;
  CHECK(sim::iso_device_counts(TensorKind::one_d, 1, 12, 512) == V{2, 3, 4, 6, 12});
  CHECK(sim::iso_device_counts(TensorKind::two_d, 1, 64, 64) == V{4, 9, 16, 25, 36, 49, 64});
  CHECK(sim::iso_device_counts(TensorKind::two_and_half_d, 2, 64, 128) ==
        V{8, 18, 32, 50, 72, 98, 128});
  CHECK(sim::iso_device_counts(TensorKind::three_d, 1, 64, 512) ==
        V{8, 27, 64, 125, 216, 343, 512});
}

TEST_CASE("isoefficiency: a plan the executor rejects at every size becomes a skipped count") {
  const hw::HardwareProfile hw = free_communication_profile();
  Scenario s = tiny_1d(2);
  s.model.heads = 6;  // 2D q = 4 does not divide the heads, whatever the hidden size
  const std::vector<TensorKind> kinds = {TensorKind::two_d};
  sim::IsoefficiencyOptions options;
  options.max_gpus = 16;
  options.search.target = 0.5;
  options.search.max_size = 1024;
  const auto plan_for = [](TensorKind kind, std::int64_t p) {
    ParallelPlan plan;
    plan.tensor.kind = kind;
    plan.tensor.size = p;
    return plan;
  };
  const auto result = sim::analyze_isoefficiency(s, hw, kinds, options, plan_for);
  REQUIRE(result.size() == 1);
  REQUIRE(result[0].skipped.size() == 2);  // q = 3 (9 GPUs) and q = 4 (16)
  CHECK(result[0].skipped[0].gpus == 9);
  CHECK(result[0].skipped[1].gpus == 16);
  CHECK(result[0].skipped[1].reason.find("heads") != std::string::npos);
  REQUIRE(result[0].points.size() == 1);  // q = 2
  CHECK(result[0].points[0].gpus == 4);
  CHECK_FALSE(result[0].fit.has_value());
}
