// The fits recover known parameters from synthetic measurements drawn through the simulator's
// own cost models, and the calibrated profile they write loads back as a valid profile.

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "calibrate/fit_profile.hpp"
#include "calibrate/profile_writer.hpp"
#include "calibrate/raw_measurements.hpp"
#include "inputs/hwprofile_loader.hpp"
#include "reports/atomic_file.hpp"
#include "sim/collective_model.hpp"
#include "synthetic_raw.hpp"

namespace trainsim::calibrate {
namespace {

const std::filesystem::path kBaseFile =
    std::filesystem::path(TRAINSIM_SOURCE_ROOT) / "hwprofiles" / "selene-a100-80gb.yaml";

RawMeasurements synthetic(const hw::HardwareProfile& truth, double noise) {
  std::istringstream in(testing::synthetic_raw_csv(truth, noise));
  return parse_raw_measurements(in, "synthetic.csv");
}

/// Fitted curve against the truth at the sizes where bandwidth time is at least half the
/// collective's time (below, the efficiency is lost in the latency; the fit says so).
void check_curve(const hw::EfficiencyCurve& fitted, const hw::EfficiencyCurve& truth,
                 double tolerance) {
  int checked = 0;
  for (const auto& p : fitted.points()) {
    if (p.size < 1024.0 * 1024.0) continue;  // latency-dominated on this fabric
    CHECK_MESSAGE(
        std::abs(p.efficiency / truth.at(p.size) - 1.0) < tolerance,
        "size " << p.size << ": fitted " << p.efficiency << ", true " << truth.at(p.size));
    ++checked;
  }
  CHECK(checked >= 5);
}

void check_recovery(double noise, double tolerance) {
  const hw::HardwareProfile base = inputs::load_hardware_profile(kBaseFile);
  const hw::HardwareProfile truth = testing::synthetic_truth(base);
  const RawMeasurements raw = synthetic(truth, noise);
  const ProfileFit fit = fit_profile(raw, base);
  const hw::HardwareProfile& p = fit.profile;

  CHECK(fit.unverified_rows == 1);
  CHECK(p.gpu.gemm.tile_m == truth.gpu.gemm.tile_m);
  CHECK(p.gpu.gemm.tile_n == truth.gpu.gemm.tile_n);
  CHECK(p.gpu.gemm.max_efficiency ==
        doctest::Approx(truth.gpu.gemm.max_efficiency).epsilon(tolerance));
  CHECK(p.gpu.memory_efficiency == doctest::Approx(truth.gpu.memory_efficiency).epsilon(tolerance));
  CHECK(p.gpu.kernel_launch.us() ==
        doctest::Approx(truth.gpu.kernel_launch.us()).epsilon(3 * tolerance));
  CHECK(p.collectives.base_latency.us() ==
        doctest::Approx(truth.collectives.base_latency.us()).epsilon(3 * tolerance));
  check_curve(p.collectives.intra_node_efficiency, truth.collectives.intra_node_efficiency,
              3 * tolerance);
  check_curve(p.collectives.inter_node_efficiency, truth.collectives.inter_node_efficiency,
              3 * tolerance);
  CHECK(p.compute_slowdown_during_comm ==
        doctest::Approx(truth.compute_slowdown_during_comm).epsilon(3 * tolerance));
  for (const FitSummary& s : fit.fits) {
    INFO(s.what);
    CHECK(s.held_out.rows > 0);
    CHECK(s.held_out.median < 2 * noise + 1e-3);
  }
}

TEST_CASE("fit recovers the true parameters from noiseless synthetic rows") {
  check_recovery(0.0, 2e-3);
}

TEST_CASE("fit recovers the true parameters from rows with 0.5 % noise (tolerance 1 %)") {
  check_recovery(0.005, 1e-2);
}

TEST_CASE("an untouched base profile does not pass for the truth") {
  // The recovery tests would be vacuous if the truth were the base: every fitted figure moved.
  const hw::HardwareProfile base = inputs::load_hardware_profile(kBaseFile);
  const hw::HardwareProfile truth = testing::synthetic_truth(base);
  CHECK(std::abs(base.gpu.gemm.max_efficiency / truth.gpu.gemm.max_efficiency - 1.0) > 0.05);
  CHECK(base.gpu.gemm.tile_m != truth.gpu.gemm.tile_m);
  CHECK(std::abs(base.gpu.memory_efficiency / truth.gpu.memory_efficiency - 1.0) > 0.05);
  CHECK(std::abs(base.collectives.base_latency / truth.collectives.base_latency - 1.0) > 0.05);
  CHECK(std::abs(base.compute_slowdown_during_comm / truth.compute_slowdown_during_comm - 1.0) >
        0.05);
}

TEST_CASE("the calibrated profile loads back with the fitted figures and their provenance") {
  const hw::HardwareProfile base = inputs::load_hardware_profile(kBaseFile);
  const RawMeasurements raw = synthetic(testing::synthetic_truth(base), 0.005);
  const ProfileFit fit = fit_profile(raw, base);
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / "trainsim-test-fitted-profile.yaml";
  reports::write_atomically(
      out, fitted_profile_yaml(kBaseFile, fit, {raw.file, raw.environment}, "fitted"));
  const hw::HardwareProfile loaded = inputs::load_hardware_profile(out);
  std::filesystem::remove(out);
  CHECK(loaded.name == "fitted");
  CHECK(loaded.gpu.gemm.max_efficiency ==
        doctest::Approx(fit.profile.gpu.gemm.max_efficiency).epsilon(1e-5));
  CHECK(loaded.gpu.gemm.tile_n == fit.profile.gpu.gemm.tile_n);
  CHECK(loaded.gpu.kernel_launch.us() ==
        doctest::Approx(fit.profile.gpu.kernel_launch.us()).epsilon(1e-5));
  CHECK(loaded.collectives.intra_node_efficiency.points().size() ==
        fit.profile.collectives.intra_node_efficiency.points().size());
  CHECK(loaded.compute_slowdown_during_comm ==
        doctest::Approx(fit.profile.compute_slowdown_during_comm).epsilon(1e-5));
  // Unfitted fields keep the base's figure and source.
  CHECK(loaded.comm_slowdown_during_compute == base.comm_slowdown_during_compute);
  CHECK(loaded.provenance.at("gpu.peak.bf16") == base.provenance.at("gpu.peak.bf16"));
  const std::string& source = loaded.provenance.at("gpu.gemm.max_efficiency");
  CHECK(source.find("fitted from synthetic.csv") == 0);
  CHECK(source.find("held-out median") != std::string::npos);
  CHECK(source.find("date 2026-11-21") != std::string::npos);
}

TEST_CASE("every 5th row of a fit group is held out") {
  std::vector<RawMeasurement> rows(12);
  std::vector<const RawMeasurement*> group;
  for (const RawMeasurement& r : rows)
    group.push_back(&r);
  const RowSplit split = split_rows(group);
  REQUIRE(split.held_out.size() == 2);
  CHECK(split.held_out[0] == &rows[4]);
  CHECK(split.held_out[1] == &rows[9]);
  CHECK(split.fit.size() == 10);
}

TEST_CASE("error statistics: median and nearest-rank 90th percentile") {
  const ErrorStats s = error_stats({0.05, 0.01, 0.02, 0.03, 0.04, 0.06, 0.07, 0.08, 0.09, 0.5});
  CHECK(s.rows == 10);
  CHECK(s.median == doctest::Approx(0.055));
  CHECK(s.p90 == doctest::Approx(0.09));
}

TEST_CASE("a fit without enough rows says what is missing") {
  const hw::HardwareProfile base = inputs::load_hardware_profile(kBaseFile);
  std::istringstream in(
      "benchmark,dtype,m,n,k,batch,bytes,group_size,tier,algorithm,time_s,repetitions,flops,"
      "bytes_moved,verified\n"
      "memcpy,,,,,,,,,,1e-3,10,,1000000000,yes\n"
      "memcpy,,,,,,,,,,1e-3,10,,1000000000,yes\n");
  const RawMeasurements raw = parse_raw_measurements(in, "few.csv");
  CHECK_THROWS_WITH_AS(fit_profile(raw, base),
                       doctest::Contains("need at least two (e.g. launch rows and copies)"),
                       Infeasible);
}

}  // namespace
}  // namespace trainsim::calibrate
