#pragma once
// Internal to inputs/import/: bash's $((...)) for the launch-script reader (shell_script.cpp):
// 64-bit integers that wrap as bash's do, + - * / % and parentheses, unary minus and plus,
// decimal, hex and octal numbers, and variables whose values are expressions in turn.

#include <cstdint>
#include <string_view>

#include "inputs/import/shell_state.hpp"
#include "inputs/import/shell_text.hpp"

namespace trainsim::inputs::import::detail {

/// The value of `expression` (written at `where`) with the shell's variables. Throws ConfigError
/// for syntax outside the subset, division by zero, overflowing numbers and runaway recursion;
/// reading an unset variable as 0 adds a note.
std::int64_t evaluate_arithmetic(std::string_view expression, Position where, Shell& shell);

}  // namespace trainsim::inputs::import::detail
