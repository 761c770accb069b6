#pragma once
// An analysis report runs its command with fixed arguments; parsing them with the command's own
// option definitions, and recording them in the report's `command` block, makes the command
// line shown in the README the one that produced it.

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "documents/report_content.hpp"

namespace trainsim::cli {

/// Parses `args` (as typed after `trainsim COMMAND`) with `cmd`'s options. Throws
/// std::invalid_argument naming the command and CLI11's message when they do not parse.
void parse_report_arguments(CLI::App& cmd, const std::string& command,
                            const std::vector<std::string>& args);

/// The options of `command` as `define` declares them, parsed from `args`.
template <typename Options>
Options parse_report_options(void (*define)(CLI::App&, Options&), const std::string& command,
                             const std::vector<std::string>& args) {
  Options options;
  CLI::App cmd;
  define(cmd, options);
  parse_report_arguments(cmd, command, args);
  return options;
}

/// Adds block `command`: the command line in a shell code fence, run from the repository root.
void add_command_block(documents::ReportContent& content, const std::string& command,
                       const std::vector<std::string>& args);

}  // namespace trainsim::cli
