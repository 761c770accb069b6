#include <doctest/doctest.h>

#include <utility>

#include "sim/max_batch.hpp"
#include "sim_fixtures.hpp"
#include "units/doctest_printers.hpp"

using namespace trainsim;

namespace {
Scenario tiny_scenario() {
  Scenario s;
  s.name = "tiny";
  s.gpus = 2;
  s.model.layers = 2;
  s.model.hidden = 256;
  s.model.heads = 4;
  s.model.ffn = 1024;
  s.model.seq_len = 512;
  s.model.vocab = 1024;
  s.model.vocab_divisor = 1;
  s.parallel.tensor.size = 2;
  s.training.global_batch = 2;
  s.training.micro_batch = 1;
  return s;
}
// Memory for `steps` micro-batch steps: the peak of the first probe plus `steps` - 1 times the
// growth between the first two probes (the peak grows linearly with the micro batch).
Bytes memory_for(const Scenario& scenario, hw::HardwareProfile profile, double steps) {
  profile.gpu.memory = Bytes::of(std::int64_t{1} << 40);
  const sim::MaxBatchResult probe = sim::find_max_batch(scenario, profile);
  REQUIRE(probe.probes.size() >= 2);
  const Bytes at1 = probe.probes[0].peak;
  const Bytes at2 = probe.probes[1].peak;
  REQUIRE(at2 > at1);
  return at1 + Bytes::of(static_cast<std::int64_t>((steps - 1.0) * (at2 - at1).as_double()));
}
}  // namespace

TEST_CASE("max batch: the answer fits and one more does not") {
  hw::HardwareProfile profile = test::small_profile();
  profile.node.gpus = 2;
  const Scenario scenario = tiny_scenario();
  // Size the memory so that the answer is neither 1 nor the search limit: between 10 and 11
  // micro batches' worth of the activation growth above the model state.
  profile.gpu.memory = memory_for(scenario, profile, 10.5);

  const sim::MaxBatchResult r = sim::find_max_batch(scenario, profile);
  CHECK(r.micro_batch == 10);
  CHECK(r.global_batch == 10 * 2);  // 2 micro batches per replica kept, DP 1
  CHECK(r.peak <= profile.gpu.memory);
  bool probed_next = false;
  for (const sim::BatchProbe& p : r.probes) {
    if (p.micro_batch == 11) {
      probed_next = true;
      CHECK_FALSE(p.fits);
      CHECK(p.peak > profile.gpu.memory);
    }
    CHECK(p.fits == (p.micro_batch <= 10));
  }
  CHECK(probed_next);
}

TEST_CASE("max batch: nothing fits when the model state alone exceeds memory") {
  hw::HardwareProfile profile = test::small_profile();
  profile.node.gpus = 2;
  profile.gpu.memory = Bytes::of(1024);
  const sim::MaxBatchResult r = sim::find_max_batch(tiny_scenario(), profile);
  CHECK(r.micro_batch == 0);
  CHECK(r.probes.size() == 1);
}

TEST_CASE("max batch: a 2D/2.5D grid searches in multiples of q (x depth)") {
  hw::HardwareProfile profile = test::small_profile();
  profile.node.gpus = 8;
  for (const auto& [kind, depth] : {std::pair{TensorKind::two_d, std::int64_t{1}},
                                    std::pair{TensorKind::two_and_half_d, std::int64_t{2}}}) {
    CAPTURE(to_string(kind));
    Scenario scenario = tiny_scenario();
    scenario.gpus = 4 * depth;
    scenario.parallel.tensor.kind = kind;
    scenario.parallel.tensor.size = 4 * depth;
    scenario.parallel.tensor.depth = depth;
    const std::int64_t step = 2 * depth;
    scenario.training.micro_batch = step;
    scenario.training.global_batch = 2 * step;
    // Room for 5 steps of the micro batch, not 6.
    profile.gpu.memory = memory_for(scenario, profile, 5.5);
    const sim::MaxBatchResult r = sim::find_max_batch(scenario, profile);
    CHECK(r.micro_batch_step == step);
    CHECK(r.micro_batch == 5 * step);
    for (const sim::BatchProbe& p : r.probes) {
      CHECK(p.micro_batch % step == 0);
      CHECK(p.fits == (p.micro_batch <= 5 * step));
    }
  }
}
