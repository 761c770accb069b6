#include "cli/import_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "documents/atomic_file.hpp"
#include "inputs/hwprofile_loader.hpp"
#include "inputs/import/megatron_flags.hpp"
#include "inputs/import/nemo_config.hpp"
#include "inputs/import/shell_script.hpp"
#include "inputs/import/torchtitan_config.hpp"
#include "inputs/scenario_loader.hpp"

namespace trainsim::cli {
namespace {

namespace im = inputs::import;

struct ImportArguments {
  std::filesystem::path file;     // the launch script or config
  std::vector<std::string> args;  // Megatron's arguments given after `--`
  std::string hardware;
  std::int64_t gpus = 0;
  std::int64_t vocab = 0;
  std::string name;
  std::filesystem::path out;

  im::ImportOptions options() const {
    im::ImportOptions o;
    o.hardware = hardware;
    if (gpus > 0) o.gpus = gpus;
    if (vocab > 0) o.vocab = vocab;
    o.name = !name.empty() ? name : !file.empty() ? file.stem().string() : "imported";
    return o;
  }
};

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError({file, 0, 0}, "cannot be read (no such file, or no permission)");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// What the scenario's profile can simulate: fused attention needs the profile's gpu.attention
// figures (else Megatron's unfused attention is simulated, and a note says so);
// CUDA_DEVICE_MAX_CONNECTIONS, exported by a launch script, is a runtime setting only where the
// profile describes a host (the loader refuses it otherwise).
void fit_to_profile(im::ImportedScenario& s, const std::map<std::string, std::string>& exported) {
  const hw::HardwareProfile profile = inputs::load_hardware_profile(
      inputs::resolve_hardware_profile(*s.value("hardware"), std::filesystem::current_path(),
                                       SourceLocation{"--hardware", 0, 0}, "--hardware"));
  if (s.value("model.attention") == "flash" && !profile.gpu.attention) {
    s.set("model.attention", "standard",
          fmt::format("the profile {} has no gpu.attention figures for fused attention: "
                      "Megatron's unfused attention simulated instead",
                      profile.name));
    s.notes.push_back(
        fmt::format("fused attention simulated as unfused: {} has no gpu.attention", profile.name));
  }
  const auto it = exported.find("CUDA_DEVICE_MAX_CONNECTIONS");
  if (it == exported.end()) return;
  if (!profile.host) {
    s.notes.push_back(
        fmt::format("export CUDA_DEVICE_MAX_CONNECTIONS={}: not written, the profile "
                    "has no host section to apply it to",
                    it->second));
    return;
  }
  s.set("runtime.device_max_connections", it->second,
        fmt::format("export CUDA_DEVICE_MAX_CONNECTIONS={} (the script)", it->second));
}

// `exported`: the launch script's `export NAME=value`s.
im::ImportedScenario import_megatron(const ImportArguments& a,
                                     std::map<std::string, std::string>& exported) {
  if (a.file.empty() == a.args.empty())
    throw ConfigError({}, "give either --file LAUNCH.sh or Megatron's arguments after `--`");
  if (!a.file.empty()) {
    const im::LaunchCommand command = im::parse_launch_script(read_file(a.file), a.file);
    im::ImportedScenario s = im::scenario_from_launch_command(
        command, a.options(), fmt::format("{} (Megatron-LM launch script)", a.file.string()));
    exported = command.exported;
    return s;
  }
  std::vector<SourceLocation> where;
  for (std::size_t i = 0; i < a.args.size(); ++i)
    where.push_back({"command line", 1, static_cast<int>(i + 1)});
  return im::scenario_from_megatron(im::split_megatron_arguments(a.args, where), {}, a.options(),
                                    "the command line (Megatron-LM arguments)");
}

// Loads the scenario as `simulate` would, from a file beside the output (a profile given as a
// path resolves relative to it), so an import never writes a scenario that does not load.
void check_loads(const std::string& yaml, const std::filesystem::path& out) {
  const std::filesystem::path dir =
      out.empty() ? std::filesystem::current_path() : std::filesystem::absolute(out).parent_path();
  const std::filesystem::path probe = dir / fmt::format(".trainsim-import-{}.yaml", ::getpid());
  documents::write_atomically(probe, yaml);
  // Removed however the load ends.
  const std::unique_ptr<const std::filesystem::path, void (*)(const std::filesystem::path*)> guard(
      &probe, [](const std::filesystem::path* p) {
        std::error_code ignored;
        std::filesystem::remove(*p, ignored);
      });
  try {
    (void)inputs::load_scenario(probe);
  } catch (const ConfigError& e) {
    throw ConfigError({"the imported scenario", e.where().line, e.where().column},
                      fmt::format("does not load, so it was not written: {}", e.message()));
  }
}

void run_import(const std::string& format, const ImportArguments& a) {
  if (!a.out.empty()) documents::check_destination(a.out);
  im::ImportedScenario s;
  std::map<std::string, std::string> exported;
  if (format == "megatron") {
    s = import_megatron(a, exported);
  } else {
    const std::string text = read_file(a.file);
    s = format == "nemo" ? im::import_nemo(text, a.file, a.options())
                         : im::import_torchtitan(text, a.file, a.options());
  }
  fit_to_profile(s, exported);
  const std::string yaml = s.to_yaml();
  check_loads(yaml, a.out);
  if (a.out.empty()) {
    fmt::print("{}", yaml);
  } else {
    documents::write_atomically(a.out, yaml);
  }
  fmt::print(stderr, "{}", s.summary());
}

void add_common(CLI::App* sub, ImportArguments& a) {
  sub->add_option("--hardware", a.hardware,
                  "Hardware profile of the scenario: a name in hwprofiles/ or a path (the "
                  "configuration does not say)")
      ->required();
  sub->add_option("--gpus", a.gpus, "World size, where the input does not give it (wins over it)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20));
  sub->add_option("--vocab", a.vocab, "Vocabulary size, where the tokenizer is not read")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 27));
  sub->add_option("--name", a.name, "Scenario name (default: the input file's name)");
  sub->add_option("-o,--out", a.out, "Write the scenario YAML here (atomically) instead of stdout");
}

}  // namespace

void add_import_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "import",
      "Turn a Megatron-LM launch script or arguments, a NeMo / Megatron-Bridge YAML or a "
      "torchtitan TOML into a commented scenario YAML (every value traced to its setting; "
      "settings not used are listed, never dropped silently)");
  cmd->require_subcommand(1);
  auto a = std::make_shared<ImportArguments>();

  CLI::App* megatron = cmd->add_subcommand(
      "megatron",
      "Megatron-LM: `--file launch.sh` (the torchrun line running pretrain_*.py, bash "
      "arrays and variables expanded) or the arguments after `--`");
  megatron->add_option("--file", a->file, "Launch script (bash)")->check(CLI::ExistingFile);
  megatron->add_option("args", a->args, "Megatron's arguments (after `--`)");
  add_common(megatron, *a);
  megatron->callback([a] { run_import("megatron", *a); });

  CLI::App* nemo = cmd->add_subcommand(
      "nemo",
      "NeMo 1 (Hydra: trainer:, model:) or Megatron-Bridge (ConfigContainer: model:, "
      "train:, dataset:, ddp:, mixed_precision:) YAML config");
  nemo->add_option("file", a->file, "Config YAML")->required()->check(CLI::ExistingFile);
  add_common(nemo, *a);
  nemo->callback([a] { run_import("nemo", *a); });

  CLI::App* titan =
      cmd->add_subcommand("torchtitan", "torchtitan job config TOML (llama3 flavors)");
  titan->add_option("file", a->file, "Job config TOML")->required()->check(CLI::ExistingFile);
  add_common(titan, *a);
  titan->callback([a] { run_import("torchtitan", *a); });
}

}  // namespace trainsim::cli
