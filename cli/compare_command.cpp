#include "cli/compare_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "cli/progress_bar.hpp"
#include "documents/atomic_file.hpp"
#include "inputs/hwprofile_loader.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/errors.hpp"
#include "reports/analyses/scheme_comparison.hpp"
#include "reports/analyses/scheme_comparison_report.hpp"

namespace trainsim::cli {
namespace {

struct CompareCommandOptions {
  std::filesystem::path scenario;
  std::string tensor = "1d,2d,2.5d,3d";
  std::string depth;  ///< empty: not given
  std::string json;   ///< a file, "-" for stdout, empty for none
  bool no_max_batch = false;
};

// --depth as an integer >= 2 (a 2.5D stack of one grid is 2D), or nullopt when not given.
std::optional<std::int64_t> parse_depth(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < 2) {
    throw CLI::ValidationError(
        "--depth",
        fmt::format("a 2.5d depth is an integer >= 2 (d stacked q x q grids); got '{}'", text));
  }
  return value;
}

void run_compare(const CompareCommandOptions& options) {
  const std::optional<std::int64_t> depth = parse_depth(options.depth);
  const std::vector<reports::TensorVariant> variants = [&] {
    try {
      return reports::parse_tensor_variants(options.tensor, depth);
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--tensor", e.what());
    }
  }();
  const bool has_2p5d = std::any_of(variants.begin(), variants.end(), [](const auto& v) {
    return v.kind == TensorKind::two_and_half_d;
  });
  if (depth && !has_2p5d) {
    throw CLI::ValidationError(
        "--depth", fmt::format("applies to 2.5d only, and --tensor '{}' has none", options.tensor));
  }
  const bool json_to_stdout = options.json == "-";
  if (!options.json.empty() && !json_to_stdout) documents::check_destination(options.json);
  const Scenario scenario = inputs::load_scenario(options.scenario);
  const hw::HardwareProfile hardware = inputs::scenario_hardware(scenario);
  reports::CompareOptions compare;
  compare.max_batch = !options.no_max_batch;
  ProgressBar bar;
  compare.progress = bar.callback();
  const std::vector<reports::SchemeResult> rows =
      reports::compare_tensor_schemes(scenario, hardware, variants, compare);
  bar.clear();
  const std::string json =
      options.json.empty() ? "" : reports::schemes_to_json(scenario, hardware, rows).dump(2) + "\n";
  if (json_to_stdout) {
    std::cout << json;
  } else {
    std::cout << reports::format_scheme_table(scenario, hardware, rows);
    if (!json.empty()) documents::write_atomically(options.json, json);
  }
  const bool none_ran = std::all_of(rows.begin(), rows.end(), [](const reports::SchemeResult& r) {
    return r.problem.has_value();
  });
  if (none_ran) {
    throw Infeasible(fmt::format("no scheme of '{}' can run {} (reasons above)", options.tensor,
                                 options.scenario.string()));
  }
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto options = std::make_shared<CompareCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Run the scenario's model, batch and GPUs under several tensor-parallel schemes: step "
      "time, inference time, max batch and ratios to the first scheme");
  cmd->add_option("scenario", options->scenario, "Scenario YAML file")->required();
  cmd->add_option("--tensor", options->tensor,
                  "Comma-separated schemes, the first is the baseline (1d, 2d, 2.5d, ...)")
      ->capture_default_str();
  cmd->add_option("--depth", options->depth,
                  "2.5d depth d >= 2 (default: the scenario's when it is 2.5d, else the d >= 2 "
                  "whose q x q x d grid is closest to a cube)");
  cmd->add_option("--json", options->json,
                  "Write the comparison as JSON to this file (\"-\": to stdout instead of the "
                  "table)");
  cmd->add_flag("--no-max-batch", options->no_max_batch,
                "Skip the max-batch search (one build and replay per probe)");
  cmd->callback([options] { run_compare(*options); });
}

}  // namespace trainsim::cli
