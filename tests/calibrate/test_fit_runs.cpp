// Whole-run fitting: recovery of known iteration times, "measured" times simulated on a known
// profile fitted from another (the vTrain CSV parser and the held-out rule:
// tests/inputs/test_run_measurements.cpp).

#include <doctest/doctest.h>

#include <fmt/format.h>
#include <filesystem>

#include <array>
#include <cmath>
#include <sstream>

#include "calibrate/fit_runs.hpp"
#include "inputs/hwprofile_loader.hpp"
#include "inputs/run_measurements.hpp"
#include "models/build_program.hpp"
#include "models/errors.hpp"
#include "sim/replay.hpp"

namespace trainsim::calibrate {
namespace {

const std::filesystem::path kBaseFile =
    std::filesystem::path(TRAINSIM_SOURCE_ROOT) / "hwprofiles" / "selene-a100-80gb.yaml";

inputs::RunMeasurements parse(std::string_view text) {
  std::istringstream in{std::string(text)};
  return inputs::parse_run_measurements(in, "runs.csv");
}

hw::HostSpec guessed_host() {
  hw::HostSpec h;
  h.framework = "test";
  h.gemm = h.kernel = Time::from_us(10);
  h.collective = h.p2p = Time::from_us(20);
  h.sync_latency = Time::from_us(10);
  return h;
}

/// vTrain-style rows (GPUs = t x d x p on one node) timed on `truth`, as the CSV.
std::string simulated_rows(const hw::HardwareProfile& truth,
                           const std::vector<std::array<std::int64_t, 7>>& configs) {
  std::string csv;
  for (const auto& [hidden, layers, t, d, p, micro, seq] : configs) {
    const std::int64_t batch = 4 * micro * d;
    Scenario s;
    s.gpus = t * d * p;
    s.model = {layers, hidden, 16, 4 * hidden, seq, 50257};
    s.training.global_batch = batch;
    s.training.micro_batch = micro;
    s.parallel.tensor.size = t;
    s.parallel.pipeline.size = p;
    s.parallel.data.size = d;
    s.parallel.data.overlap_grad_reduce = false;
    s.parallel.recompute = Recompute::full;
    const double ms =
        sim::replay(build_program(s, ProgramScope::representative), truth).iteration_time.ms();
    csv += fmt::format("{},{},{},{},16,{},{},{},{},{},{:.9f}\n", s.gpus, batch, micro, hidden,
                       layers, seq, t, d, p, ms);
  }
  return csv;
}

hw::HardwareProfile truth_of(const hw::HardwareProfile& base) {
  hw::HardwareProfile truth = base;
  truth.host->gemm = truth.host->kernel = Time::from_us(35);
  truth.host->collective = truth.host->p2p = Time::from_us(45);
  truth.gpu.memory_efficiency = 0.64;
  truth.gpu.kernel_launch = Time::from_us(2.0);
  return truth;
}

TEST_CASE("fit-runs brings iteration times simulated on a known profile back within 1 %") {
  hw::HardwareProfile base = inputs::load_hardware_profile(kBaseFile);
  base.host = guessed_host();
  // Host-bound rows (small hidden size, micro batch 1) and GPU-bound ones (large micro
  // batches, long sequences), with and without tensor parallelism: each figure matters to some.
  const std::string csv = simulated_rows(
      truth_of(base), {// hidden, layers, tensor, data, pipeline, micro batch, sequence
                       {512, 4, 1, 2, 1, 1, 512},
                       {1024, 4, 2, 1, 1, 1, 512},
                       {1024, 2, 1, 2, 1, 8, 2048},
                       {2048, 2, 2, 1, 1, 8, 2048},
                       {1024, 4, 4, 1, 2, 1, 512},
                       {2048, 2, 8, 1, 1, 4, 2048},
                       {1024, 4, 2, 1, 2, 2, 1024},
                       {2048, 2, 4, 2, 1, 8, 1024},
                       {512, 8, 1, 4, 2, 1, 512},
                       {1024, 2, 2, 2, 2, 8, 2048}});
  // Noiseless rows: the search, not the data, limits the agreement.
  RunSetup setup;
  setup.max_evaluations = 1500;
  const RunFit fit = fit_runs(parse(csv), base, 0.2, setup);
  CHECK(fit.skipped_rows == 0);
  CHECK(fit.fitted_rows == 8);
  CHECK(fit.fitted_held_out.rows == 2);
  CHECK(fit.base_fit.absolute.median > 0.03);  // the base is off; the fit is not
  CHECK(fit.fitted_fit.absolute.p90 < 0.01);
  CHECK(fit.fitted_held_out.absolute.p90 < 0.01);
  // Rows in both regimes determine every figure: each comes back (truth_of's).
  const std::vector<double> truth{35.0, 45.0, 0.64, 2.0};
  REQUIRE(fit.parameters.size() == truth.size());
  for (std::size_t i = 0; i < truth.size(); ++i) {
    CAPTURE(fit.parameters[i].parameter.name);
    CHECK(fit.parameters[i].fitted == doctest::Approx(truth[i]).epsilon(0.02));
  }
  CHECK(fit.confounded.empty());
  CHECK_THROWS_AS(fit_runs(parse(csv), base, 1.0), std::invalid_argument);
  // Every figure fitted is reported with its bounds and lands inside them.
  REQUIRE(fit.parameters.size() == whole_run_parameters(base).size());
  for (const FittedParameter& f : fit.parameters) {
    CAPTURE(f.parameter.name);
    CHECK(f.fitted >= f.parameter.low);
    CHECK(f.fitted <= f.parameter.high);
  }
  // A base without a host section is refused: its dispatch costs must be fitted too.
  hw::HardwareProfile no_host = base;
  no_host.host.reset();
  CHECK_THROWS_WITH_AS(fit_runs(parse(csv), no_host, 0.2), doctest::Contains("no host section"),
                       std::invalid_argument);
}

TEST_CASE("fit-runs says which figures host-bound rows cannot determine") {
  hw::HardwareProfile base = inputs::load_hardware_profile(kBaseFile);
  base.host = guessed_host();
  // One GPU each, host-bound: no collective at all.
  const std::string csv = simulated_rows(truth_of(base), {{512, 4, 1, 1, 1, 1, 512},
                                                          {512, 2, 1, 1, 1, 1, 512},
                                                          {256, 4, 1, 1, 1, 1, 512},
                                                          {512, 2, 1, 1, 1, 2, 256},
                                                          {256, 2, 1, 1, 1, 1, 512},
                                                          {512, 6, 1, 1, 1, 1, 512}});
  RunSetup setup;
  setup.max_evaluations = 200;
  const RunFit fit = fit_runs(parse(csv), base, 0.0, setup);
  // The host's cost of a communication op: no row here communicates.
  bool curve_undetermined = false;
  for (const Confounded& c : fit.confounded) {
    if (c.a == c.b &&
        fit.parameters[c.a].parameter.fields.front() == "host.dispatch.collective")
      curve_undetermined = true;
  }
  CHECK(curve_undetermined);
}

TEST_CASE("confounded parameters: collinear Jacobian columns and unused parameters are named") {
  // Columns 0 and 1 move every row in proportion; column 2 is independent; column 3 is zero.
  std::vector<std::vector<double>> j;
  for (int r = 0; r < 12; ++r) {
    const double x = 1.0 + r;
    j.push_back({x, 2.0 * x + 1e-9 * r * r, std::sin(x), 0.0});
  }
  const std::vector<double> ranges{1.0, 1.0, 1.0, 1.0};
  const std::vector<Confounded> c = confounded_parameters(j, ranges);
  bool pair = false;
  bool unused = false;
  for (const Confounded& k : c) {
    if (k.a == 0 && k.b == 1) pair = std::abs(k.correlation) > 0.99;
    if (k.a == 3 && k.b == 3) unused = true;
    CHECK_FALSE((k.a == 2 || k.b == 2));
  }
  CHECK(pair);
  CHECK(unused);
  // Independent columns: nothing reported.
  std::vector<std::vector<double>> ok;
  for (int r = 0; r < 12; ++r)
    ok.push_back({std::cos(r * 0.7), std::sin(r * 1.3)});
  CHECK(confounded_parameters(ok, {1.0, 1.0}).empty());
  // A column that moves the rows by 0.1 % over the whole range is as good as none.
  std::vector<std::vector<double>> weak;
  for (int r = 0; r < 12; ++r)
    weak.push_back({std::cos(r * 0.7), 0.001 * std::sin(r * 1.3)});
  const std::vector<Confounded> w = confounded_parameters(weak, {1.0, 1.0});
  REQUIRE(w.size() == 1);
  CHECK(w[0].a == 1);
  CHECK(w[0].b == 1);
}

}  // namespace
}  // namespace trainsim::calibrate
