#pragma once
// Internal to inputs/import/: the tests of `[` / `test` and `[[ ]]` for the launch-script reader
// (shell_script.cpp). Strings and integers are compared as bash would; file tests and shell
// options are taken as false, with a note: the importer does not look at the machine.

#include <string>
#include <vector>

#include "inputs/import/shell_state.hpp"
#include "inputs/import/shell_text.hpp"

namespace trainsim::inputs::import::detail {

enum class TestSyntax { single_bracket, double_bracket };

/// One word of a test: `syntax` when it may act as an operator (unquoted literal in [[ ]];
/// anything in [ ]), `pattern` when the right side of == may glob.
struct TestArg {
  std::string text;
  Position where;
  bool syntax = true;
  bool pattern = false;
};

/// A test bash rejects when it runs: `[` then prints an error and fails, `[[` is a syntax error.
struct MalformedTest {
  Position where;
  std::string message;
};

/// Evaluates the string and integer tests of `[`/`test` and `[[`: -z -n = == != < > -eq -ne
/// -lt -le -gt -ge, ! ( ) and the connectives (-a -o in [ ], && || in [[ ]]), `args` without
/// the brackets, the test written at `where`. Throws MalformedTest where bash rejects the test.
bool evaluate_test(std::vector<TestArg> args, TestSyntax syntax, Position where, Shell& shell);

}  // namespace trainsim::inputs::import::detail
