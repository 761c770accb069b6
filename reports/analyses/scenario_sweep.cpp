#include "reports/analyses/scenario_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "inputs/scenario_loader.hpp"
#include "models/errors.hpp"
#include "models/spread.hpp"
#include "reports/scenario_run.hpp"
#include "units/format.hpp"

namespace trainsim::reports {
namespace {

std::vector<std::string> split(const std::string& list, char separator) {
  std::vector<std::string> parts;
  std::size_t from = 0;
  while (true) {
    const std::size_t at = list.find(separator, from);
    parts.push_back(list.substr(from, at == std::string::npos ? at : at - from));
    if (at == std::string::npos) return parts;
    from = at + 1;
  }
}

SweepResult simulate(const SweepRun& run) {
  SweepResult out;
  try {
    const Scenario scenario = inputs::load_scenario(run.scenario_file, run.overrides);
    out.scenario = scenario.name;
    const ScenarioRun simulated = run_scenario(scenario, inputs::scenario_hardware(scenario));
    const Summary& s = simulated.summary;
    out.gpus = s.gpus;
    out.iteration = s.iteration_time;
    out.tokens_per_s = s.tokens_per_s;
    out.mfu = s.mfu;
    out.hardware_rate_per_gpu = s.hardware_rate_per_gpu;
    out.peak = s.memory.peak;
    out.capacity = s.memory.capacity;
    out.fits = s.memory.fits;
  } catch (const ConfigError& e) {
    out.error = e.what();
  } catch (const Infeasible& e) {
    out.error = fmt::format("infeasible: {}", e.what());
  }
  if (out.scenario.empty()) out.scenario = run.scenario_file.stem().string();
  return out;
}

void encode(ByteWriter& out, const SweepResult& r) {
  out.put_string(r.scenario);
  out.put_string(r.error);
  out.put(r.gpus);
  out.put(r.iteration);
  out.put(r.tokens_per_s);
  out.put(r.mfu);
  out.put(r.hardware_rate_per_gpu);
  out.put(r.peak);
  out.put(r.capacity);
  out.put(r.fits);
}

SweepResult decode(ByteReader& in) {
  SweepResult r;
  r.scenario = in.get_string();
  r.error = in.get_string();
  r.gpus = in.get<std::int64_t>();
  r.iteration = in.get<Time>();
  r.tokens_per_s = in.get<double>();
  r.mfu = in.get<double>();
  r.hardware_rate_per_gpu = in.get<FlopRate>();
  r.peak = in.get<Bytes>();
  r.capacity = in.get<Bytes>();
  r.fits = in.get<bool>();
  return r;
}

std::size_t failures(const std::vector<SweepResult>& results) {
  return static_cast<std::size_t>(std::count_if(
      results.begin(), results.end(), [](const SweepResult& r) { return !r.error.empty(); }));
}

}  // namespace

SweepAxis parse_sweep_axis(const std::string& text) {
  const std::size_t equals = text.find('=');
  const auto wrong = [&](std::string_view why) {
    return std::invalid_argument(
        fmt::format("--vary {}: {}; write KEY=V1,V2,… with KEY a dotted scenario field, such as "
                    "parallel.tensor.size=2,4,8",
                    text, why));
  };
  if (equals == std::string::npos) throw wrong("no '='");
  SweepAxis axis;
  axis.keys = split(text.substr(0, equals), '+');
  for (const std::string& key : axis.keys) {
    if (key.empty()) throw wrong("an empty key");
  }
  for (const std::string& value : split(text.substr(equals + 1), ',')) {
    axis.values.push_back(split(value, '+'));
    if (axis.values.back().size() != axis.keys.size()) {
      throw wrong(fmt::format("value '{}' has {} part{} for {} key{} (join parts with '+')", value,
                              axis.values.back().size(), axis.values.back().size() == 1 ? "" : "s",
                              axis.keys.size(), axis.keys.size() == 1 ? "" : "s"));
    }
    for (const std::string& part : axis.values.back()) {
      if (part.empty()) throw wrong("an empty value");
    }
  }
  return axis;
}

std::vector<SweepRun> sweep_runs(const std::vector<std::filesystem::path>& scenarios,
                                 const std::vector<SweepAxis>& axes) {
  std::size_t combinations = 1;
  for (const SweepAxis& axis : axes)
    combinations *= axis.values.size();
  std::vector<SweepRun> runs;
  for (const std::filesystem::path& file : scenarios) {
    for (std::size_t c = 0; c < combinations; ++c) {
      SweepRun& run = runs.emplace_back();
      run.scenario_file = file;
      std::vector<std::size_t> chosen(axes.size());
      std::size_t rest = c;  // the last axis varies fastest
      for (std::size_t a = axes.size(); a-- > 0;) {
        chosen[a] = rest % axes[a].values.size();
        rest /= axes[a].values.size();
      }
      for (std::size_t a = 0; a < axes.size(); ++a) {
        for (std::size_t k = 0; k < axes[a].keys.size(); ++k) {
          const std::string& key = axes[a].keys[k];
          const std::string& value = axes[a].values[chosen[a]][k];
          run.overrides.push_back({key, value, fmt::format("--vary {}={}", key, value)});
        }
      }
    }
  }
  return runs;
}

std::vector<SweepResult> run_sweep(const std::vector<SweepRun>& runs, const SweepOptions& options) {
  return spread<SweepResult>(
      options.processes, runs.size(), options.threads,
      [&](std::size_t i) { return simulate(runs[i]); }, encode, decode,
      sim::in_phase(options.progress, "sweep"));
}

documents::ReportTable sweep_table(const std::vector<SweepRun>& runs,
                                   const std::vector<SweepResult>& results) {
  documents::ReportTable table;
  table.id = "sweep";
  table.columns = {"scenario"};
  if (!runs.empty()) {
    for (const inputs::ScenarioOverride& o : runs.front().overrides)
      table.columns.push_back(o.key);
  }
  for (const char* column : {"GPUs", "iteration (s)", "tokens/s", "MFU (%)", "TFLOP/s per GPU",
                             "peak memory", "fits", "why not"})
    table.columns.emplace_back(column);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const SweepResult& r = results[i];
    std::vector<std::string> row{r.scenario};
    for (const inputs::ScenarioOverride& o : runs[i].overrides)
      row.push_back(o.value);
    if (r.error.empty()) {
      row.push_back(fmt::format("{}", r.gpus));
      row.push_back(fmt::format("{:.4f}", r.iteration.seconds()));
      row.push_back(fmt::format("{:.0f}", r.tokens_per_s));
      row.push_back(fmt::format("{:.1f}", 100.0 * r.mfu));
      row.push_back(fmt::format("{:.1f}", r.hardware_rate_per_gpu.flops_per_second() / 1e12));
      row.push_back(to_gib_string(r.peak));
      row.push_back(r.fits ? "yes" : fmt::format("no (of {})", to_gib_string(r.capacity)));
      row.emplace_back();
    } else {
      row.insert(row.end(), 7, "—");
      row.push_back(r.error);
    }
    table.add_row(std::move(row));
  }
  return table;
}

std::string sweep_text(const std::vector<SweepRun>& runs, const std::vector<SweepResult>& results) {
  const std::size_t failed = failures(results);
  return fmt::format("sweep: {} run{}{}\n\n{}", runs.size(), runs.size() == 1 ? "" : "s",
                     failed == 0 ? "" : fmt::format(", {} without a prediction", failed),
                     sweep_table(runs, results).markdown());
}

nlohmann::json sweep_json(const std::vector<SweepRun>& runs,
                          const std::vector<SweepResult>& results) {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const SweepResult& r = results[i];
    nlohmann::json row;
    row["scenario"] = r.scenario;
    row["scenario_file"] = runs[i].scenario_file.string();
    nlohmann::json varied = nlohmann::json::object();
    for (const inputs::ScenarioOverride& o : runs[i].overrides)
      varied[o.key] = o.value;
    row["varied"] = varied;
    if (!r.error.empty()) {
      row["error"] = r.error;
    } else {
      row["gpus"] = r.gpus;
      row["iteration_s"] = r.iteration.seconds();
      row["tokens_per_s"] = r.tokens_per_s;
      row["mfu"] = r.mfu;
      row["hardware_tflops_per_gpu"] = r.hardware_rate_per_gpu.flops_per_second() / 1e12;
      row["peak_memory_bytes"] = r.peak.count();
      row["capacity_bytes"] = r.capacity.count();
      row["fits"] = r.fits;
    }
    out.push_back(row);
  }
  return {{"runs", out}};
}

}  // namespace trainsim::reports
