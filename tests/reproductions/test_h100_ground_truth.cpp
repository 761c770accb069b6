// The four PyTorch steps measured on a real H100 (calibrate/measurements/2026-11-27-h100/,
// reproductions/h100-ground-truth/) against trainsim's predictions on the nominal dgx-h100 profile
// and on dgx-h100-calibrated (fitted from that session's microbenchmarks, not from these
// steps). Tolerances stated at the first comparison (issue 24's aim is 5 % on the step):
// |step error| <= 22 % nominal, <= 20 % calibrated, and the calibrated profile no worse than
// the nominal one on any step. The gap is the eager PyTorch step's unfused element-wise
// kernels (reproductions/h100-ground-truth/README.md); a change that moves a step out of these
// bands must say why.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/kineto_trace.hpp"
#include "inputs/scenario_loader.hpp"
#include "reports/kineto_breakdown.hpp"
#include "reports/kineto_validation.hpp"
#include "reports/scenario_run.hpp"

namespace trainsim::reports {
namespace {

const std::filesystem::path kRoot(TRAINSIM_SOURCE_ROOT);

double step_error(const std::string& model, const std::string& profile) {
  const hw::HardwareProfile hw =
      inputs::load_hardware_profile(kRoot / "hwprofiles" / (profile + ".yaml"));
  const ScenarioRun run = run_scenario(
      inputs::load_scenario(kRoot / "scenarios/h100-ground-truth" / (model + ".yaml")), hw);
  const KinetoBreakdown measured = kineto_breakdown(inputs::load_kineto_trace(
      kRoot / "calibrate/measurements/2026-11-27-h100/pytorch" / model / "trace.json.gz"));
  const KinetoValidation v = validate_kineto(measured, run.program, hw, run.result.iteration_time);
  return v.step.predicted_s / v.step.measured_s - 1.0;
}

TEST_CASE("H100 ground truth: each PyTorch step within its stated band, calibration no worse") {
  for (const char* model :
       {"gpt2-h1024-l4-mb4", "llama-h2048-l4-mb2", "llama-h2048-l4-mb8", "llama-h4096-l2-mb1"}) {
    CAPTURE(model);
    const double nominal = step_error(model, "dgx-h100");
    const double calibrated = step_error(model, "dgx-h100-calibrated");
    CAPTURE(nominal);
    CAPTURE(calibrated);
    CHECK(std::abs(nominal) <= 0.22);
    CHECK(std::abs(calibrated) <= 0.20);
    CHECK(std::abs(calibrated) <= std::abs(nominal));
  }
}

}  // namespace
}  // namespace trainsim::reports
