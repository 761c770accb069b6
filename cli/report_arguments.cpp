#include "cli/report_arguments.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace trainsim::cli {

void parse_report_arguments(CLI::App& cmd, const std::string& command,
                            const std::vector<std::string>& args) {
  // CLI11 takes a vector in reverse order and consumes it.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    cmd.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw std::invalid_argument(
        fmt::format("the report's arguments of `trainsim {}` do not parse: {}", command, e.what()));
  }
}

void add_command_block(documents::ReportContent& content, const std::string& command,
                       const std::vector<std::string>& args) {
  std::string line = "build/bin/trainsim " + command;
  for (const std::string& a : args) {
    const bool plain =
        !a.empty() &&
        a.find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+") ==
            std::string::npos;
    line += plain ? " " + a : " '" + a + "'";
  }
  content.add_block("command", documents::fenced(line, "sh"));
}

}  // namespace trainsim::cli
