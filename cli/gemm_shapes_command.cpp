#include "cli/gemm_shapes_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <vector>

#include "calibrate/gemm_shapes.hpp"
#include "documents/atomic_file.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/build_program.hpp"
#include "models/errors.hpp"

namespace trainsim::cli {
namespace {

struct GemmShapesOptions {
  std::vector<std::filesystem::path> scenarios;
  std::filesystem::path out;
};

void run_gemm_shapes(const GemmShapesOptions& options) {
  documents::check_destination(options.out);
  std::vector<calibrate::GemmShape> shapes;
  for (const std::filesystem::path& file : options.scenarios) {
    const Scenario scenario = inputs::load_scenario(file);
    // The representative ranks run every distinct GEMM: ranks of one class record the same ops.
    const program::Program program = build_program(scenario, ProgramScope::representative);
    calibrate::collect_gemm_shapes(program, shapes);
  }
  documents::write_atomically(
      options.out, [&](std::ostream& out) { calibrate::write_gemm_shapes(out, shapes); });
  fmt::print("{} unique GEMM shapes from {} scenarios → {}\n", shapes.size(),
             options.scenarios.size(), options.out.string());
}

}  // namespace

void add_gemm_shapes_command(CLI::App& app) {
  auto options = std::make_shared<GemmShapesOptions>();
  CLI::App* cmd = app.add_subcommand(
      "gemm-shapes",
      "List the unique GEMM shapes (m, n, k, batch, dtype, transposes) of the scenarios' "
      "recorded Programs, for trainsim-calibrate --shapes");
  cmd->add_option("scenarios", options->scenarios, "Scenario YAML files")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", options->out, "Shapes CSV to write")->required();
  cmd->callback([options] { run_gemm_shapes(*options); });
}

}  // namespace trainsim::cli
