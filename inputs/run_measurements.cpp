#include "inputs/run_measurements.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <string>
#include <string_view>

#include "inputs/parameters.hpp"
#include "models/errors.hpp"

namespace trainsim::inputs {
namespace {

constexpr std::array<std::string_view, 11> kColumns{"GPUs",
                                                    "global batch",
                                                    "micro batch",
                                                    "hidden size",
                                                    "attention heads",
                                                    "layers",
                                                    "sequence length",
                                                    "tensor parallelism",
                                                    "data parallelism",
                                                    "pipeline parallelism",
                                                    "iteration time (ms)"};
/// The scenario key each integer column becomes (measured_run_scenario): its range is the
/// scenario's, so an accepted row always makes a valid scenario.
constexpr std::array<std::string_view, 10> kScenarioKeys{"gpus",
                                                         "training.global_batch",
                                                         "training.micro_batch",
                                                         "model.hidden",
                                                         "model.heads",
                                                         "model.layers",
                                                         "model.seq_len",
                                                         "parallel.tensor.size",
                                                         "parallel.data.size",
                                                         "parallel.pipeline.size"};
/// A measured iteration longer than a day is a unit error (seconds for milliseconds, say).
constexpr double kMaxIterationMs = 86'400'000.0;

}  // namespace

RunMeasurements parse_run_measurements(std::istream& in, const std::filesystem::path& file) {
  RunMeasurements out;
  out.file = file;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.empty() || text.front() == '#') continue;
    std::array<double, kColumns.size()> values{};
    std::size_t start = 0;
    for (std::size_t c = 0; c < kColumns.size(); ++c) {
      const std::size_t comma = text.find(',', start);
      const bool last = c + 1 == kColumns.size();
      if ((comma == std::string::npos) != last) {
        throw ConfigError({file, line, static_cast<int>(start) + 1},
                          fmt::format("expected {} comma-separated cells ({})", kColumns.size(),
                                      fmt::join(kColumns, ", ")));
      }
      const std::size_t end = last ? text.size() : comma;
      const std::string_view cell(text.data() + start, end - start);
      double v = 0.0;
      const auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
      const bool integer = !last;
      const double high =
          integer ? static_cast<double>(scenario_parameter(kScenarioKeys[c]).max) : kMaxIterationMs;
      if (ec != std::errc{} || ptr != cell.data() + cell.size() || !(v > 0.0) || !(v <= high) ||
          (integer && v != std::floor(v))) {
        throw ConfigError({file, line, static_cast<int>(start) + 1},
                          fmt::format("{}: expected a positive {} up to {}, got '{}'", kColumns[c],
                                      integer ? "integer" : "number (ms)", high, cell));
      }
      values[c] = v;
      start = end + 1;
    }
    auto at = [&](std::size_t c) { return static_cast<std::int64_t>(values[c]); };
    RunMeasurement r{at(0),
                     at(1),
                     at(2),
                     at(3),
                     at(4),
                     at(5),
                     at(6),
                     at(7),
                     at(8),
                     at(9),
                     Time::from_ms(values[10]),
                     line};
    // Each factor is at most the scenario's GPU limit, so the product cannot overflow.
    if (r.gpus != r.tensor * r.data * r.pipeline) {
      throw ConfigError({file, line, 1},
                        fmt::format("GPUs: {} is not tensor x data x pipeline = {} x {} x {}",
                                    r.gpus, r.tensor, r.data, r.pipeline));
    }
    out.rows.push_back(r);
  }
  if (out.rows.empty()) throw ConfigError({file, line, 0}, "no measurement rows");
  return out;
}

RunMeasurements read_run_measurements(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw ConfigError({file, 0, 0}, "cannot open the run measurement file");
  return parse_run_measurements(in, file);
}

Scenario measured_run_scenario(const RunMeasurement& run, const RunAssumptions& assumptions) {
  Scenario s;
  s.name = fmt::format("line-{}", run.line);
  s.gpus = run.gpus;
  s.model.layers = run.layers;
  s.model.hidden = run.hidden;
  s.model.heads = run.heads;
  s.model.ffn = 4 * run.hidden;
  s.model.seq_len = run.seq_len;
  s.model.vocab = assumptions.vocab;
  s.model.vocab_divisor = assumptions.vocab_divisor;
  s.model.dtype = DType::bf16;
  s.training.global_batch = run.global_batch;
  s.training.micro_batch = run.micro_batch;
  s.parallel.tensor.size = run.tensor;
  s.parallel.pipeline.size = run.pipeline;
  s.parallel.pipeline.schedule = PipelineSchedule::one_f_one_b;
  s.parallel.data.size = run.data;
  s.parallel.data.overlap_grad_reduce = false;
  s.parallel.recompute = Recompute::full;
  return s;
}

bool run_held_out(std::size_t index, double fraction) {
  const auto i = static_cast<double>(index);
  return std::floor((i + 1.0) * fraction) > std::floor(i * fraction);
}

}  // namespace trainsim::inputs
