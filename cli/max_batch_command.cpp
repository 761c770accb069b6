#include "cli/max_batch_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/progress_bar.hpp"
#include "documents/atomic_file.hpp"
#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/errors.hpp"
#include "sim/max_batch.hpp"
#include "units/format.hpp"

namespace trainsim::cli {
namespace {

struct MaxBatchOptions {
  std::filesystem::path scenario;
  std::filesystem::path json;
};

void run_max_batch(const MaxBatchOptions& options) {
  if (!options.json.empty()) documents::check_destination(options.json);
  const Scenario scenario = inputs::load_scenario(options.scenario);
  const hw::HardwareProfile hardware = inputs::scenario_hardware(scenario);
  ProgressBar bar;
  const sim::MaxBatchResult r = sim::find_max_batch(scenario, hardware, bar.callback());
  bar.clear();

  fmt::print(
      "{} on {}: {} micro batch{} per data-parallel replica (kept from the scenario), "
      "{} per GPU{}\n",
      scenario.name, hardware.name, r.micro_batches_per_replica,
      r.micro_batches_per_replica == 1 ? "" : "es", to_gib_string(r.capacity),
      r.micro_batch_step > 1
          ? fmt::format("; micro batches in multiples of {} (what the tensor grid splits)",
                        r.micro_batch_step)
          : "");
  fmt::print("  {:>12}  {:>14}  {}\n", "micro batch", "peak memory", "fits");
  for (const sim::BatchProbe& p : r.probes) {
    fmt::print("  {:>12}  {:>14}  {}\n", p.micro_batch,
               p.peak > Bytes::zero() ? to_gib_string(p.peak) : "-", p.fits ? "yes" : "no");
  }
  if (r.micro_batch == 0) {
    throw Infeasible(fmt::format("'{}' does not fit even with micro batch 1 (peak {} of {})",
                                 scenario.name, to_gib_string(r.probes.front().peak),
                                 to_gib_string(r.capacity)));
  }
  fmt::print("largest micro batch {} → global batch {} (peak {} of {})\n", r.micro_batch,
             r.global_batch, to_gib_string(r.peak), to_gib_string(r.capacity));
  if (!options.json.empty()) {
    nlohmann::ordered_json j;
    j["scenario"] = scenario.name;
    j["hardware"] = hardware.name;
    j["micro_batch"] = r.micro_batch;
    j["global_batch"] = r.global_batch;
    j["micro_batches_per_replica"] = r.micro_batches_per_replica;
    j["micro_batch_step"] = r.micro_batch_step;
    j["peak_bytes"] = r.peak.count();
    j["capacity_bytes"] = r.capacity.count();
    nlohmann::ordered_json probes = nlohmann::ordered_json::array();
    for (const sim::BatchProbe& p : r.probes) {
      probes.push_back(
          {{"micro_batch", p.micro_batch}, {"peak_bytes", p.peak.count()}, {"fits", p.fits}});
    }
    j["probes"] = probes;
    documents::write_atomically(options.json, j.dump(2) + "\n");
  }
}

}  // namespace

void add_max_batch_command(CLI::App& app) {
  auto options = std::make_shared<MaxBatchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "max-batch",
      "Find the largest batch the scenario's plan fits in GPU memory (simulated peak)");
  cmd->add_option("scenario", options->scenario, "Scenario YAML file")->required();
  cmd->add_option("--json", options->json, "Write the result as JSON to this file");
  cmd->callback([options] { run_max_batch(*options); });
}

}  // namespace trainsim::cli
