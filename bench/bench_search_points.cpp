// bench_search_points: where `trainsim training-time`'s time goes, point by point. Runs the
// layout search of each (GPUs, batch) point given, one after another on one thread with one
// shared FitMemo (as training-time runs each point: top 1, threads 1), and prints per point
// its wall time split by phase (bound, traffic, estimate, replay; `other` is enumeration and
// pruning), the search's counts and its best layout, or why it has none.
// Usage: bench_search_points SCENARIO.yaml GPUS:BATCH [GPUS:BATCH ...]
// (default: the Llama 3 405B scenario at 16384:16384, the point that bounds its training-time
// grid to 16384 GPUs; see BENCHMARKS.md).

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/errors.hpp"
#include "sim/analysis/fit_memo.hpp"
#include "sim/analysis/layout_search.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// "GPUS:BATCH" as two positive integers; exits with a message otherwise.
std::pair<std::int64_t, std::int64_t> parse_point(std::string_view text) {
  const auto colon = text.find(':');
  try {
    if (colon == std::string_view::npos) throw std::invalid_argument("no ':'");
    std::size_t used = 0;
    const std::string gpus(text.substr(0, colon));
    const std::string batch(text.substr(colon + 1));
    const std::int64_t g = std::stoll(gpus, &used);
    if (used != gpus.size()) throw std::invalid_argument("gpus");
    const std::int64_t b = std::stoll(batch, &used);
    if (used != batch.size() || g < 1 || b < 1) throw std::invalid_argument("batch");
    return {g, b};
  } catch (const std::exception&) {
    fmt::print(stderr,
               "bench_search_points: point '{}' is not GPUS:BATCH (two positive "
               "integers, e.g. 16384:16384)\n",
               text);
    std::exit(2);
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace trainsim;
  const std::filesystem::path scenario_path =
      argc > 1 ? std::filesystem::path(argv[1])
               : std::filesystem::path(TRAINSIM_SOURCE_ROOT) / "scenarios/llama3/llama3-405b.yaml";
  std::vector<std::pair<std::int64_t, std::int64_t>> points;
  for (int i = 2; i < argc; ++i)
    points.push_back(parse_point(argv[i]));
  if (points.empty()) points.emplace_back(16384, 16384);

  try {
    const Scenario scenario = inputs::load_scenario(scenario_path);
    const hw::HardwareProfile hardware = inputs::scenario_hardware(scenario);
    sim::FitMemo memo;
    fmt::print("{:>6} {:>6} {:>8}  {:>6} {:>7} {:>8} {:>7} {:>6}  {:>5} {:>7} {:>7} {:>5}  best\n",
               "GPUs", "batch", "wall s", "bound", "traffic", "estimate", "replay", "other", "fits",
               "tallied", "bounded", "repl.");
    double total = 0.0;
    for (const auto& [gpus, batch] : points) {
      sim::SearchOptions options;
      options.top = 1;
      options.threads = 1;
      options.memo = &memo;
      // A phase's time runs from the previous progress call to each of its own.
      std::map<std::string, double, std::less<>> phase_s;
      Clock::time_point last = Clock::now();
      const Clock::time_point start = last;
      options.progress = [&](std::string_view phase, std::size_t done, std::size_t) {
        const Clock::time_point now = Clock::now();
        const double s = std::chrono::duration<double>(now - last).count();
        phase_s[done > 0 ? std::string(phase) : std::string("other")] += s;
        last = now;
      };
      std::string best;
      sim::SearchResult result;
      try {
        result = sim::search_layouts(scenario.model, hardware, gpus, batch, options);
        best = fmt::format("{:.3f} s  {}", result.best.front().iteration.seconds(),
                           sim::describe(result.best.front().candidate.layout));
      } catch (const Infeasible& e) {
        best = fmt::format("none: {}", std::string(e.what()).substr(0, 100));
      }
      const double wall = seconds_since(start);
      phase_s["other"] += seconds_since(last);
      total += wall;
      fmt::print(
          "{:>6} {:>6} {:>8.1f}  {:>6.1f} {:>7.1f} {:>8.1f} {:>7.1f} {:>6.1f}  {:>5} {:>7} "
          "{:>7} {:>5}  {}\n",
          gpus, batch, wall, phase_s["bound"], phase_s["traffic"], phase_s["estimate"],
          phase_s["replay"], phase_s["other"], result.reduced_layouts, result.traffic_layouts,
          result.bounded_out, result.replayed, best);
      std::fflush(stdout);
    }
    fmt::print("{} points in {:.1f} s\n", points.size(), total);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_search_points: {}\n", e.what());
    return 1;
  }
  return 0;
}
