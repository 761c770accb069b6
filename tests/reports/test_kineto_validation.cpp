// validate-run --kineto against a scenario: a synthetic trace whose every op of rank 0 ran at
// 1.25x its prediction reads -20 % in every family that has ops; each recorded op falls in
// its family; a trace without steps is refused.
#include <doctest/doctest.h>

#include <map>
#include <stdexcept>
#include <string>

#include "reports/kineto_validation.hpp"
#include "reports/scenario_run.hpp"
#include "sim/compute_model.hpp"

namespace trainsim::reports {
namespace {

using inputs::KernelFamily;

const ScenarioRun& llama_run() {
  static const ScenarioRun run =
      run_scenario_file(std::filesystem::path(TRAINSIM_SOURCE_ROOT) /
                        "scenarios/h100-ground-truth/llama-h2048-l4-mb2.yaml");
  return run;
}

TEST_CASE("validate-run --kineto: a uniform 1.25x slowdown reads -20 % per family") {
  const ScenarioRun& run = llama_run();
  const program::RankProgram& rank0 = run.program.ranks.front();
  REQUIRE(rank0.rank == 0);
  KinetoBreakdown measured;
  measured.source = "synthetic.json";
  std::map<KernelFamily, int> ops;
  for (int step = 0; step < 2; ++step) {
    KinetoStep s;
    s.number = step;
    s.wall_s = 2.0 + step;  // median 2.5
    for (const program::Op& op : rank0.ops) {
      if (!op.is_compute()) continue;
      const int f = static_cast<int>(family_of(op));
      s.family_s[f] += sim::compute_time(op, run.hardware).seconds() * 1.25;
      ++s.family_count[f];
      s.gpu_busy_s += sim::compute_time(op, run.hardware).seconds() * 1.25;
      if (step == 0) ++ops[family_of(op)];
    }
    measured.steps.push_back(s);
  }
  CHECK(ops[KernelFamily::gemm] > 0);
  CHECK(ops[KernelFamily::attention] > 0);  // flash attention
  CHECK(ops[KernelFamily::normalization] > 0);
  CHECK(ops[KernelFamily::softmax_loss] > 0);
  CHECK(ops[KernelFamily::optimizer] > 0);
  CHECK(ops[KernelFamily::elementwise] > 0);
  CHECK(ops.count(KernelFamily::communication) == 0);  // collectives are not compute

  const KinetoValidation v =
      validate_kineto(measured, run.program, run.hardware, Time::from_seconds(2.0));
  CHECK(v.by_family.size() == ops.size());
  for (const ValidationRow& r : v.by_family) {
    REQUIRE(r.signed_error().has_value());
    CHECK(*r.signed_error() == doctest::Approx(-0.2).epsilon(1e-9));
    CHECK(r.predicted_ops == r.measured_ops);
  }
  CHECK(*v.gpu_busy.signed_error() == doctest::Approx(-0.2).epsilon(1e-9));
  CHECK(v.step.measured_s == doctest::Approx(2.5));
  CHECK(*v.step.signed_error() == doctest::Approx(2.0 / 2.5 - 1.0));
  const std::string text = format_kineto_validation(v);
  CHECK(text.find("attention") != std::string::npos);
  CHECK(text.find("-20.0 %") != std::string::npos);
}

TEST_CASE("validate-run --kineto: a trace without steps is refused") {
  KinetoBreakdown empty;
  empty.source = "nosteps.json";
  CHECK_THROWS_AS((void)validate_kineto(empty, llama_run().program, llama_run().hardware,
                                        Time::from_seconds(1.0)),
                  std::invalid_argument);
}

}  // namespace
}  // namespace trainsim::reports
