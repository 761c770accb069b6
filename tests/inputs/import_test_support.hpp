#pragma once
// Shared by the importer tests: read a fixture, load what an importer wrote as `simulate`
// would, and a digest of the Program a scenario builds, so "import gives the same Program as
// the hand-written scenario" is one comparison.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "inputs/import/imported_scenario.hpp"
#include "inputs/scenario_loader.hpp"
#include "models/build_program.hpp"
#include "models/program.hpp"
#include "reports/program_table.hpp"

namespace trainsim::test {

/// A fixture's bytes; throws naming the file when it cannot be read.
inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The scenario `imported.to_yaml()` describes, loaded from a file of this process (removed).
inline Scenario load_imported(const inputs::import::ImportedScenario& imported,
                              const std::string& stem) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() /
      ("trainsim-import-" + std::to_string(::getpid()) + "-" + stem + ".yaml");
  std::ofstream(file) << imported.to_yaml();
  Scenario scenario = inputs::load_scenario(file);
  std::filesystem::remove(file);
  return scenario;
}

/// The representative ranks' Programs: op counts by kind, FLOPs, collectives, memory, and
/// every op's label in order.
inline std::string program_digest(const Scenario& scenario) {
  const program::Program p = build_program(scenario, ProgramScope::representative);
  std::string out = reports::format_program_stats(p);
  for (const program::RankProgram& rank : p.ranks)
    for (const program::Op& op : rank.ops)
      out += program::op_label(p, op) + "\n";
  return out;
}

}  // namespace trainsim::test
