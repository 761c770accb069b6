#pragma once
// A scenario value replaced from the command line (`trainsim sweep … --vary
// parallel.tensor.size=2,4,8`): the dotted key of a scenario field and the value it takes,
// written into the parsed YAML before the scenario is read, so that every check the loader
// makes applies to it as if it were in the file.

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <span>
#include <string>

namespace trainsim::inputs {

struct ScenarioOverride {
  std::string key;    ///< dotted field path, "parallel.tensor.size"
  std::string value;  ///< the scalar as it would be written in the file, "4"
  /// How the user asked for it, for messages ("--vary parallel.tensor.size=2,4,8").
  std::string origin;
};

/// Writes each override into `root` (the scenario file's document), creating the mappings its
/// key names where the file leaves them out. Throws ConfigError (at `file`, naming the
/// override's origin) for an empty key part or a key through a value that is not a mapping.
void apply_overrides(YAML::Node root, std::span<const ScenarioOverride> overrides,
                     const std::filesystem::path& file);

/// "--vary a=1, --vary b=x": the origins, for errors about a scenario read with them.
std::string describe_overrides(std::span<const ScenarioOverride> overrides);

}  // namespace trainsim::inputs
