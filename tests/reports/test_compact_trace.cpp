// Compact traces (issue 21 item 4): gzip output that inflates to the same JSON, the GPUs a
// trace shows, flow arrows bound to the ops they join, and the main job's trace under 15 MB.
#include <doctest/doctest.h>
#include <zlib.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "documents/gzip.hpp"
#include "reports/chrome_trace.hpp"
#include "reports/scenario_run.hpp"

namespace trainsim::reports {
namespace {

std::string gunzip(const std::string& data) {
  z_stream s{};
  REQUIRE(inflateInit2(&s, 15 + 16) == Z_OK);
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  s.avail_in = static_cast<uInt>(data.size());
  std::string out;
  std::string chunk(1 << 16, '\0');
  int status = Z_OK;
  while (status != Z_STREAM_END) {
    s.next_out = reinterpret_cast<Bytef*>(chunk.data());
    s.avail_out = static_cast<uInt>(chunk.size());
    status = inflate(&s, Z_NO_FLUSH);
    REQUIRE((status == Z_OK || status == Z_STREAM_END));
    out.append(chunk.data(), chunk.size() - s.avail_out);
  }
  inflateEnd(&s);
  return out;
}

ScenarioRun traced_run(const std::string& scenario, ProgramScope scope) {
  sim::ReplayOptions traced;  // as `simulate --trace` runs it
  traced.record_memory_timeline = true;
  return run_scenario_file(std::filesystem::path(TRAINSIM_SOURCE_ROOT) / scenario, scope, traced);
}

TEST_CASE("gzip: inflates to the text, the same bytes every time, .gz names it") {
  const std::string text = std::string(100000, 'a') + "{\"traceEvents\": []}\n";
  const std::string packed = documents::gzip(text);
  CHECK(packed.size() < text.size() / 20);
  CHECK(gunzip(packed) == text);
  CHECK(documents::gzip(text) == packed);
  CHECK(gunzip(documents::gzip("")).empty());
  // Streamed: the same bytes, also across many small writes and the buffer's edges.
  std::ostringstream streamed;
  documents::write_gzip(streamed, [&](std::ostream& out) {
    for (const char c : text)
      out.put(c);
  });
  CHECK(streamed.str() == packed);
  std::ostringstream big_streamed;
  const std::string big(3 << 20, 'x');
  documents::write_gzip(big_streamed, [&](std::ostream& out) { out << big; });
  CHECK(big_streamed.str() == documents::gzip(big));
  CHECK(gunzip(big_streamed.str()) == big);
  CHECK(documents::is_gzip_path("build/x.trace.json.gz"));
  CHECK_FALSE(documents::is_gzip_path("build/x.trace.json"));
}

TEST_CASE("trace flows: each send to its receive, each collective's first to last arrival") {
  const ScenarioRun run =
      traced_run("scenarios/tests/tiny-pp2-interleaved.yaml", ProgramScope::every_rank);
  std::ostringstream out;
  write_chrome_trace(out, run.program, run.result);
  const auto trace = nlohmann::json::parse(out.str());
  // The complete events per (GPU, track), to check that each flow end lies on an op.
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
  std::map<std::int64_t, std::vector<nlohmann::json>> flows;
  for (const auto& e : trace["traceEvents"]) {
    REQUIRE(e.contains("ph"));
    REQUIRE(e.contains("pid"));
    if (e["ph"] == "X") {
      REQUIRE(e["dur"].get<double>() >= 0.0);
      slices[{e["pid"].get<int>(), e["tid"].get<int>()}].emplace_back(
          e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
    }
    if (e["ph"] == "s" || e["ph"] == "f") flows[e["id"].get<std::int64_t>()].push_back(e);
  }
  int transfers = 0;
  int collectives = 0;
  for (const auto& [id, ends] : flows) {
    REQUIRE(ends.size() == 2);
    CHECK(ends[0]["ph"] == "s");
    CHECK(ends[1]["ph"] == "f");
    CHECK(ends[1]["bp"] == "e");
    CHECK(ends[0]["ts"].get<double>() <= ends[1]["ts"].get<double>());
    CHECK(ends[0]["pid"] != ends[1]["pid"]);
    for (const auto& end : ends) {
      const double ts = end["ts"].get<double>();
      bool on_op = false;
      for (const auto& [start, stop] : slices[{end["pid"].get<int>(), end["tid"].get<int>()}])
        on_op = on_op || (start <= ts && ts <= stop);
      CHECK(on_op);
    }
    (ends[0]["name"] == "transfer" ? transfers : collectives)++;
  }
  CHECK(transfers > 0);
  CHECK(collectives > 0);
}

TEST_CASE("trace ranks: only the GPUs asked for, and one not recorded is named with those that are") {
  const ScenarioRun run =
      traced_run("scenarios/tests/tiny-pp2-interleaved.yaml", ProgramScope::every_rank);
  std::ostringstream out;
  ChromeTraceOptions options;
  options.ranks = {4, 0};
  write_chrome_trace(out, run.program, run.result, options);
  std::set<int> processes;
  const auto trace = nlohmann::json::parse(out.str());
  for (const auto& e : trace["traceEvents"])
    processes.insert(e["pid"].get<int>());
  CHECK(processes.size() == 2);
  CHECK(processes.count(0) == 1);
  CHECK(processes.count(4) == 1);
  std::ostringstream unused;
  CHECK_THROWS_WITH_AS(
      write_chrome_trace(unused, run.program, run.result, ChromeTraceOptions{{99}}),
      doctest::Contains("GPU 99 was not recorded; the recorded GPUs are 0, 1"),
      std::invalid_argument);
}

TEST_CASE("the main job's trace, gzip: under 15 MB and valid JSON") {
  const ScenarioRun run = traced_run("scenarios/korthikanti2022/gpt-175b-sp-selective.yaml",
                                     ProgramScope::representative);
  std::ostringstream out;
  write_chrome_trace(out, run.program, run.result);
  const std::string packed = documents::gzip(out.view());
  CHECK(packed.size() < 15'000'000);
  CHECK(nlohmann::json::accept(gunzip(packed)));
}

}  // namespace
}  // namespace trainsim::reports
