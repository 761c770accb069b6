#pragma once
// Shared by the importer tests: load what an importer wrote as `simulate` would, and a digest
// of the Program a scenario builds, so "import gives the same Program as the hand-written
// scenario" is one comparison.

#include <filesystem>
#include <fstream>
#include <string>

#include "inputs/import/imported_scenario.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/build_program.hpp"
#include "reports/program_table.hpp"

namespace trainsim::test {

/// The scenario `imported.to_yaml()` describes, loaded from a temporary file.
inline Scenario load_imported(const inputs::import::ImportedScenario& imported,
                              const std::string& stem) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "trainsim-import-test";
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / (stem + ".yaml");
  std::ofstream(file) << imported.to_yaml();
  return inputs::load_scenario(file);
}

/// What the representative ranks' Programs contain, op by op kind, FLOPs, collectives, memory.
inline std::string program_digest(const Scenario& scenario) {
  return reports::format_program_stats(build_program(scenario, ProgramScope::representative));
}

}  // namespace trainsim::test
