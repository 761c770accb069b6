#pragma once
// What an importer (`trainsim import megatron|nemo|torchtitan`) made of a framework's
// configuration: the scenario keys it set, each with the text that set it, and every setting
// it did not use, so nothing is dropped silently. `to_yaml()` writes the commented scenario.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trainsim::inputs::import {

/// One scenario key and where its value came from.
struct ImportedKey {
  std::string key;     ///< dotted scenario key: "model.layers"
  std::string value;   ///< its YAML scalar: "96", "true", "bf16", a profile name
  std::string source;  ///< what set it: "--num-layers 96 (train.sh:24)", "derived: 4 x hidden"
};

/// What the user adds to a configuration that does not hold it (the options of `import`).
struct ImportOptions {
  std::string hardware;               ///< a profile name in hwprofiles/ or a path (required)
  std::optional<std::int64_t> gpus;   ///< the world size when the input does not state it
  std::optional<std::int64_t> vocab;  ///< the vocabulary when the tokenizer is not read
  std::string name;                   ///< the scenario's name ("" = the input file's stem)
};

/// The importer's result, in scenario key order.
struct ImportedScenario {
  std::string origin;                ///< "train.sh (Megatron-LM launch script)"
  std::vector<ImportedKey> keys;     ///< every key set, each once
  std::vector<std::string> ignored;  ///< settings known not to change a step's time (lr, paths)
  std::vector<std::string> unknown;  ///< settings trainsim does not know: listed, not used
  std::vector<std::string> notes;    ///< choices and approximations, one line each

  /// Sets `key` (replacing an earlier value of the same key).
  void set(std::string key, std::string value, std::string source);
  /// The value set for `key`, if any.
  std::optional<std::string> value(const std::string& key) const;

  /// The scenario YAML: a header comment (origin, notes, ignored and unknown settings), then
  /// the keys as nested mappings, each with its source as a trailing comment.
  std::string to_yaml() const;
  /// A short account for the terminal: counts, and the unknown settings by name.
  std::string summary() const;
};

}  // namespace trainsim::inputs::import
