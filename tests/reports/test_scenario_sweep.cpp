// `trainsim sweep` (reports/analyses/scenario_sweep.hpp): the axes it parses, the runs it makes
// of them, and each run's figures equal to simulating the scenario with those values alone.

#include <doctest/doctest.h>

#include <filesystem>
#include <stdexcept>
#include <vector>

#include "inputs/scenario_loader.hpp"
#include "reports/analyses/scenario_sweep.hpp"
#include "reports/scenario_run.hpp"

namespace trainsim::reports {
namespace {
const std::filesystem::path root = TRAINSIM_SOURCE_ROOT;
}

TEST_CASE("sweep axes: one key or keys joined by '+', values by ',', each checked") {
  const SweepAxis one = parse_sweep_axis("parallel.tensor.size=1,2,4");
  CHECK(one.keys == std::vector<std::string>{"parallel.tensor.size"});
  CHECK(one.values == std::vector<std::vector<std::string>>{{"1"}, {"2"}, {"4"}});
  const SweepAxis two = parse_sweep_axis("parallel.tensor.size+parallel.data.size=1+4,2+2");
  CHECK(two.keys.size() == 2);
  CHECK(two.values == std::vector<std::vector<std::string>>{{"1", "4"}, {"2", "2"}});
  CHECK_THROWS_WITH_AS(parse_sweep_axis("parallel.tensor.size"), doctest::Contains("no '='"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_sweep_axis("=1,2"), doctest::Contains("an empty key"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_sweep_axis("a=1,,2"), doctest::Contains("an empty value"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_sweep_axis("a+b=1+2,3"),
                       doctest::Contains("value '3' has 1 part for 2 keys"), std::invalid_argument);
}

TEST_CASE("sweep runs: scenario-major, the last axis fastest, one override per key") {
  const std::vector<SweepRun> runs = sweep_runs(
      {"a.yaml", "b.yaml"}, {parse_sweep_axis("x=1,2"), parse_sweep_axis("y+z=3+4,5+6,7+8")});
  REQUIRE(runs.size() == 12);
  CHECK(runs[0].scenario_file == "a.yaml");
  CHECK(runs[6].scenario_file == "b.yaml");
  const auto values = [](const SweepRun& r) {
    std::vector<std::string> v;
    for (const inputs::ScenarioOverride& o : r.overrides)
      v.push_back(o.key + "=" + o.value);
    return v;
  };
  CHECK(values(runs[0]) == std::vector<std::string>{"x=1", "y=3", "z=4"});
  CHECK(values(runs[1]) == std::vector<std::string>{"x=1", "y=5", "z=6"});
  CHECK(values(runs[3]) == std::vector<std::string>{"x=2", "y=3", "z=4"});
  CHECK(runs[4].overrides[1].origin == "--vary y=5");
  CHECK(sweep_runs({"a.yaml"}, {}).size() == 1);  // no axis: the scenario as written
}

TEST_CASE("sweep: each run as simulated alone, a run the loader rejects a row with why") {
  const std::filesystem::path tiny = root / "scenarios/tests/tiny-dp4.yaml";
  const std::vector<SweepRun> runs =
      sweep_runs({tiny}, {parse_sweep_axis("parallel.tensor.size=1,2,3")});
  for (unsigned threads : {1U, 3U}) {
    CAPTURE(threads);
    SweepOptions options;
    options.threads = threads;
    const std::vector<SweepResult> results = run_sweep(runs, options);
    REQUIRE(results.size() == 3);
    for (std::size_t i = 0; i < 2; ++i) {
      const Scenario alone = inputs::load_scenario(tiny, runs[i].overrides);
      const ScenarioRun run = run_scenario(alone, inputs::scenario_hardware(alone));
      CHECK(results[i].error.empty());
      CHECK(results[i].scenario == "tiny-dp4");
      CHECK(results[i].iteration == run.summary.iteration_time);
      CHECK(results[i].peak == run.summary.memory.peak);
      CHECK(results[i].mfu == run.summary.mfu);
    }
    CHECK(results[0].iteration != results[1].iteration);
    CHECK(results[2].error.find("(the scenario with --vary parallel.tensor.size=3)") !=
          std::string::npos);
    const std::string text = sweep_text(runs, results);
    CHECK(text.find("sweep: 3 runs, 1 without a prediction") == 0);
    CHECK(text.find("| scenario | parallel.tensor.size | GPUs |") != std::string::npos);
    const nlohmann::json json = sweep_json(runs, results);
    CHECK(json["runs"][1]["varied"]["parallel.tensor.size"] == "2");
    CHECK(json["runs"][2].contains("error"));
  }
}

}  // namespace trainsim::reports
