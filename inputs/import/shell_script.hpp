#pragma once
// The bash subset that Megatron-LM's launch scripts are written in (ecosystem-formats.md §1.5):
// enough of it to find the command that runs `pretrain_*.py` and expand its words exactly as
// bash would, with the file position each word came from. Nothing is executed.

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "models/errors.hpp"

namespace trainsim::inputs::import {

/// One word of the expanded command, and where in the script its first character was written
/// (for a word from a variable or an array element: where that value was written).
struct ShellWord {
  std::string text;
  SourceLocation where;
};

/// The training command of a launch script.
struct LaunchCommand {
  /// Words before the script: "torchrun", "--nproc_per_node", "8", ...
  std::vector<ShellWord> launcher;
  /// "pretrain_gpt.py" (any word ending in .py whose name starts with "pretrain").
  ShellWord script;
  /// Words after the script, expanded.
  std::vector<ShellWord> arguments;
  /// `export NAME=value` seen before the command (and NAME=value written before it on its line).
  std::map<std::string, std::string> exported;
  /// Every shell variable's value at the command (an array's elements joined by a space).
  std::map<std::string, std::string> variables;
  /// What could not be known before the command: "$1 (train.sh:12:17): no value, empty".
  std::vector<std::string> notes;
};

/// Expands `text` (a bash launch script read from `file`) and returns its last command that
/// runs a `pretrain*.py` script. Throws ConfigError (file:line:column and what is wrong) for
/// syntax outside the subset, an unterminated quote or array, or no such command.
LaunchCommand parse_launch_script(std::string_view text, const std::filesystem::path& file);

}  // namespace trainsim::inputs::import
