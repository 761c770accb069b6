#include "inputs/scenario_override.hpp"

#include <fmt/format.h>

#include <string_view>
#include <vector>

#include "models/errors.hpp"

namespace trainsim::inputs {
namespace {

std::vector<std::string> key_parts(const ScenarioOverride& o, const std::filesystem::path& file) {
  std::vector<std::string> parts;
  std::string_view rest = o.key;
  while (true) {
    const std::size_t dot = rest.find('.');
    parts.emplace_back(rest.substr(0, dot));
    if (parts.back().empty()) {
      throw ConfigError(SourceLocation{file, 0, 0},
                        fmt::format("{}: key \"{}\" has an empty part; write a dotted field path "
                                    "such as parallel.tensor.size",
                                    o.origin, o.key));
    }
    if (dot == std::string_view::npos) return parts;
    rest.remove_prefix(dot + 1);
  }
}

}  // namespace

void apply_overrides(YAML::Node root, std::span<const ScenarioOverride> overrides,
                     const std::filesystem::path& file) {
  for (const ScenarioOverride& o : overrides) {
    const std::vector<std::string> parts = key_parts(o, file);
    YAML::Node at = root;
    std::string path;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      path += (path.empty() ? "" : ".") + parts[i];
      const YAML::Node next = at[parts[i]];
      if (!next.IsMap()) {
        if (next.IsDefined() && !next.IsNull()) {
          throw ConfigError(
              SourceLocation{file, next.Mark().line + 1, next.Mark().column + 1},
              fmt::format("{}: {} is not a mapping in the scenario, so it has no field \"{}\"",
                          o.origin, path, parts[i + 1]));
        }
        at[parts[i]] = YAML::Node(YAML::NodeType::Map);  // a section the file leaves out
      }
      at.reset(at[parts[i]]);  // reset: `at = …` would write into the node `at` refers to
    }
    at[parts.back()] = o.value;
  }
}

std::string describe_overrides(std::span<const ScenarioOverride> overrides) {
  std::string out;
  for (const ScenarioOverride& o : overrides)
    out += fmt::format("{}{}={}", out.empty() ? "--vary " : ", --vary ", o.key, o.value);
  return out;
}

}  // namespace trainsim::inputs
