// Scenario values replaced from the command line (inputs/scenario_override.hpp, `trainsim
// sweep --vary`): written into the document before the loader reads it, so every check
// applies, and every error names the overrides.

#include <doctest/doctest.h>

#include <filesystem>
#include <vector>

#include "inputs/scenario_loader.hpp"
#include "models/errors.hpp"

namespace trainsim::inputs {
namespace {

namespace fs = std::filesystem;
const fs::path root = TRAINSIM_SOURCE_ROOT;
const fs::path tiny = root / "scenarios/tests/tiny-dp4.yaml";

ScenarioOverride vary(std::string key, std::string value) {
  std::string origin = "--vary " + key + "=" + value;
  return {std::move(key), std::move(value), std::move(origin)};
}

}  // namespace

TEST_CASE("overrides: replace a value, add one the file leaves out, and create its section") {
  const Scenario plain = load_scenario(tiny);
  CHECK(plain.parallel.tensor.size == 1);
  CHECK(plain.parallel.data.size == 4);  // derived: gpus / (TP × PP)
  const std::vector<ScenarioOverride> overrides{vary("training.micro_batch", "1"),
                                                vary("parallel.tensor.size", "2"),
                                                vary("name", "tiny-tp2")};
  const Scenario s = load_scenario(tiny, overrides);
  CHECK(s.training.micro_batch == 1);
  CHECK(s.parallel.tensor.size == 2);  // the file has no parallel section
  CHECK(s.parallel.data.size == 2);    // derived again, from the overridden size
  CHECK(s.name == "tiny-tp2");
  CHECK(s.model.hidden == plain.model.hidden);
  // Inline mappings ({layers: 2, …}) take overrides too.
  CHECK(load_scenario(tiny, std::vector{vary("model.layers", "4")}).model.layers == 4);
}

TEST_CASE("overrides: the loader's checks apply, and their errors name the overrides") {
  CHECK_THROWS_WITH_AS(load_scenario(tiny, std::vector{vary("parallel.tensor.size", "3")}),
                       doctest::Contains("(the scenario with --vary parallel.tensor.size=3)"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(load_scenario(tiny, std::vector{vary("model.heads", "four")}),
                       doctest::Contains("model.heads"), ConfigError);
  CHECK_THROWS_WITH_AS(load_scenario(tiny, std::vector{vary("model.hiden", "128")}),
                       doctest::Contains("hiden"), ConfigError);
  CHECK_THROWS_WITH_AS(load_scenario(tiny, std::vector{vary("model.layers.count", "2")}),
                       doctest::Contains("--vary model.layers.count=2: model.layers is not a "
                                         "mapping in the scenario, so it has no field \"count\""),
                       ConfigError);
  CHECK_THROWS_WITH_AS(load_scenario(tiny, std::vector{vary("model..layers", "2")}),
                       doctest::Contains("key \"model..layers\" has an empty part"), ConfigError);
}

}  // namespace trainsim::inputs
