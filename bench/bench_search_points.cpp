// bench_search_points: where `trainsim training-time`'s time goes, point by point. Runs the
// layout search of each (GPUs, batch) point given, one after another on one thread with one
// shared FitMemo (as training-time runs each point: top 1, threads 1), and prints per point
// its wall time, the search's counts, its best layout (or why it has none) and the time of
// each phase (kernels, traffic, bound, estimate, replay; `other` is enumeration and pruning, as
// `plan` and `training-time` print them: cli/phase_clock.hpp).
// Usage: bench_search_points SCENARIO.yaml GPUS:BATCH [GPUS:BATCH ...]
// (default: the Llama 3 405B scenario at 16384:16384, the point that bounds its training-time
// grid to 16384 GPUs; see BENCHMARKS.md).

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/phase_clock.hpp"
#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/errors.hpp"
#include "sim/analysis/fit_memo.hpp"
#include "sim/analysis/layout_search.hpp"

namespace {

/// A positive integer spelling the whole of `text`, or nothing.
std::optional<std::int64_t> positive(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1) return std::nullopt;
  return value;
}

/// "GPUS:BATCH" as two positive integers; exits with a message otherwise.
std::pair<std::int64_t, std::int64_t> parse_point(std::string_view text) {
  const auto colon = text.find(':');
  const std::optional<std::int64_t> gpus =
      colon == std::string_view::npos ? std::nullopt : positive(text.substr(0, colon));
  const std::optional<std::int64_t> batch =
      colon == std::string_view::npos ? std::nullopt : positive(text.substr(colon + 1));
  if (!gpus || !batch) {
    fmt::print(stderr,
               "bench_search_points: point '{}' is not GPUS:BATCH (two positive integers, e.g. "
               "16384:16384)\n",
               text);
    std::exit(2);
  }
  return {*gpus, *batch};
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
    fmt::print("{:>6} {:>6} {:>8}  {:>7} {:>5} {:>5} {:>7} {:>7} {:>5}  best; phases\n", "GPUs",
               "batch", "wall s", "kernels", "block", "fits", "tallied", "bounded", "repl.");
    double total = 0.0;
    for (const auto& [gpus, batch] : points) {
      sim::SearchOptions options;
      options.top = 1;
      options.threads = 1;
      options.memo = &memo;
      cli::PhaseClock clock;
      options.progress = [&](std::string_view phase, std::size_t done, std::size_t) {
        clock.tick(phase, done);
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
      clock.tick("other", 0);  // the search's work after its last progress call
      const double wall = clock.elapsed_s();
      total += wall;
      fmt::print("{:>6} {:>6} {:>8.1f}  {:>7} {:>5} {:>5} {:>7} {:>7} {:>5}  {}; {}\n", gpus, batch,
                 wall, result.kernel_layouts, result.compute_layouts, result.reduced_layouts,
                 result.traffic_layouts, result.bounded_out, result.replayed, best,
                 clock.summary());
      std::fflush(stdout);
    }
    fmt::print("{} points in {:.1f} s\n", points.size(), total);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_search_points: {}\n", e.what());
    return 1;
  }
  return 0;
}
