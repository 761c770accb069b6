#include <doctest/doctest.h>

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
}  // namespace

TEST_CASE("max batch: the answer fits and one more does not") {
  hw::HardwareProfile profile = test::small_profile();
  profile.node.gpus = 2;
  const Scenario scenario = tiny_scenario();
  // Size the memory so that the answer is neither 1 nor the search limit: 10 micro batches'
  // worth of the activation growth above the model state.
  profile.gpu.memory = Bytes::of(std::int64_t{1} << 40);
  const sim::MaxBatchResult probe_one = sim::find_max_batch(scenario, profile);
  REQUIRE(probe_one.probes.size() >= 2);
  const Bytes at1 = probe_one.probes[0].peak;
  const Bytes at2 = probe_one.probes[1].peak;
  REQUIRE(at2 > at1);
  profile.gpu.memory = at1 + (at2 - at1) * 9 + (at2 - at1) / 2;  // between b = 10 and b = 11

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
