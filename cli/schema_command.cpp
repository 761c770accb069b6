#include "cli/schema_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>

#include "documents/atomic_file.hpp"
#include "inputs/input_schema.hpp"

namespace trainsim::cli {

namespace {

struct SchemaOptions {
  std::string kind;
  std::filesystem::path out;
};

void run_schema(const SchemaOptions& o) {
  const nlohmann::ordered_json schema =
      o.kind == "scenario" ? inputs::scenario_schema() : inputs::profile_schema();
  const std::string text = schema.dump(2) + "\n";
  if (o.out.empty()) {
    fmt::print("{}", text);
    return;
  }
  documents::check_destination(o.out);
  documents::write_atomically(o.out, text);
}

}  // namespace

void add_schema_command(CLI::App& app) {
  auto o = std::make_shared<SchemaOptions>();
  CLI::App* cmd = app.add_subcommand(
      "schema",
      "Print the JSON Schema (draft 2020-12) of scenario or hardware-profile files, "
      "from the key tables the loaders use (for an editor's YAML language server: "
      "`# yaml-language-server: $schema=scenario.schema.json`)");
  cmd->add_option("kind", o->kind, "scenario or profile")
      ->required()
      ->check(CLI::IsMember({"scenario", "profile"}));
  cmd->add_option("-o,--out", o->out, "Write it here (atomically) instead of stdout");
  cmd->callback([o] { run_schema(*o); });
}

}  // namespace trainsim::cli
