#pragma once
// The one table of scenario keys: path, type, valid values, default and description. The
// scenario loader takes its known keys, ranges, choices and defaults from here, and
// `trainsim simulate --help` prints it; a default written anywhere else is a bug.

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace trainsim::inputs {

enum class ParameterType { string, integer, number, boolean, choice };

enum class DefaultKind {
  required,  ///< must be written in the file
  value,     ///< `default_value` is the YAML text used when the key is absent
  derived,   ///< computed by the loader from other fields; `default_value` states the rule
};

struct Parameter {
  std::string_view path;  ///< dotted key path, e.g. "model.ffn"
  ParameterType type = ParameterType::string;
  DefaultKind default_kind = DefaultKind::required;
  std::string_view default_value;
  std::vector<std::string_view> choices;  ///< valid text forms for ParameterType::choice
  /// Integer (and number) range, inclusive; a number's max at the int64 maximum is unbounded.
  std::int64_t min = std::numeric_limits<std::int64_t>::min();
  std::int64_t max = std::numeric_limits<std::int64_t>::max();
  std::string_view description;
};

/// Every scenario key, in the order the help prints them.
const std::vector<Parameter>& scenario_parameters();
/// The entry for `path`; throws std::out_of_range for a path not in the table (a code bug).
const Parameter& scenario_parameter(std::string_view path);
/// Direct child keys of a section ("" for the top level, "parallel" -> tensor, pipeline, ...).
std::vector<std::string> scenario_keys_under(std::string_view section);
/// Whether a section must be present (it holds a required key somewhere below).
bool scenario_section_required(std::string_view section);
/// "integer >= 1", "fp32 | bf16 | fp16 | fp64", ... : what a value of `p` may be.
std::string valid_values(const Parameter& p);
/// The table as text for `trainsim simulate --help`: one line per key with type, default and
/// description.
std::string scenario_parameters_help();

}  // namespace trainsim::inputs
