#pragma once
// A location-aware layer over yaml-cpp used by every loader in inputs/: each value knows its
// file, 1-based line and column, and field path ("model.heads"), so that every error is a
// ConfigError naming all four plus the offending value and what would be valid.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/errors.hpp"
#include "units/units.hpp"

namespace trainsim::inputs {

class YamlMap;

/// One value in a YAML file, with where it was written and its dotted field path.
class YamlValue {
 public:
  /// `fallback` is used as the location when the node has no mark (defaults built in code).
  YamlValue(YAML::Node node, std::shared_ptr<const std::filesystem::path> file, std::string path,
            SourceLocation fallback = {});

  /// Dotted field path, "" for the document root.
  const std::string& path() const { return path_; }
  const std::filesystem::path& file() const { return *file_; }
  /// 1-based line and column of the value (the fallback when it has none).
  SourceLocation location() const;
  const YAML::Node& node() const { return node_; }
  /// A value built at `path` from `text` (a default from a parameter table), located at `where`.
  YamlValue synthetic(std::string path, std::string_view text, SourceLocation where) const;
  /// A value built at `path` from a node made in code (an absent optional section).
  YamlValue synthetic(std::string path, YAML::Node node, SourceLocation where) const;

  bool is_scalar() const { return node_.IsScalar(); }
  bool is_mapping() const { return node_.IsMap(); }
  bool is_sequence() const { return node_.IsSequence(); }
  /// The scalar text, or "<mapping>", "<sequence>", "<empty>" for messages.
  std::string text() const;

  /// Throws ConfigError at this value: "<path>: <message>".
  [[noreturn]] void fail(std::string_view message) const;

  /// A non-empty scalar string.
  std::string as_string() const;
  /// A whole number (rejects fractions, units and words).
  std::int64_t as_int() const;
  /// A whole number in [lo, hi].
  std::int64_t as_int_in(std::int64_t lo, std::int64_t hi) const;
  /// A whole number >= 1.
  std::int64_t as_positive_int() const {
    return as_int_in(1, std::numeric_limits<std::int64_t>::max());
  }
  /// `true` or `false` (no yes/no/on/off).
  bool as_bool() const;
  /// A finite real number without unit.
  double as_double() const;
  /// A real number in [lo, hi].
  double as_double_in(double lo, double hi) const;
  /// A fraction in (0, 1].
  double as_fraction() const;
  /// One of `choices` (exact, case-sensitive); returns its index.
  std::size_t as_choice(std::span<const std::string_view> choices) const;
  /// Quantities with a mandatory unit, parsed by inputs/quantity.
  Time as_time() const;
  Bytes as_bytes() const;
  Bandwidth as_bandwidth() const;
  FlopRate as_flop_rate() const;
  Flops as_flops() const;
  InterruptionRate as_interruption_rate() const;
  /// A mapping whose keys must all be in `known_keys` (no duplicates).
  YamlMap as_map(std::vector<std::string> known_keys) const;
  /// A mapping with arbitrary scalar keys (curves, provenance), still without duplicates.
  YamlMap as_open_map() const;
  /// A sequence; each element's path is "path[i]".
  std::vector<YamlValue> as_sequence() const;

 private:
  YAML::Node node_;
  std::shared_ptr<const std::filesystem::path> file_;
  std::string path_;
  SourceLocation fallback_;
};

/// A checked mapping: entries in file order, no duplicate keys, and (unless open) no unknown ones.
class YamlMap {
 public:
  struct Entry {
    YamlValue key;    ///< the key itself (its location is where the key is written)
    YamlValue value;  ///< path = parent path + "." + key
  };

  /// Use YamlValue::as_map / as_open_map.
  YamlMap(YamlValue self, std::vector<Entry> entries, std::vector<std::string> known_keys);

  const YamlValue& self() const { return self_; }
  const std::vector<Entry>& entries() const { return entries_; }
  /// The value of `key`, or nullopt when the key is absent.
  std::optional<YamlValue> find(std::string_view key) const;
  /// The value of `key`; absent -> ConfigError at the mapping naming the missing field.
  YamlValue required(std::string_view key) const;
  /// Path of a child field: "model" + "heads" -> "model.heads".
  std::string child_path(std::string_view key) const;

 private:
  YamlValue self_;
  std::vector<Entry> entries_;
  std::vector<std::string> known_keys_;
};

/// Parses `file`. A missing or unreadable file or a YAML syntax error -> ConfigError.
YamlValue load_yaml_file(const std::filesystem::path& file);
/// Throws ConfigError at `file` unless it is a regular file ("cannot open …: no such file").
void require_file(const std::filesystem::path& file);

/// Levenshtein distance (for "did you mean").
std::size_t edit_distance(std::string_view a, std::string_view b);
/// The candidate closest to `word` if it is a plausible typo or abbreviation of it.
std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string> candidates);
/// `a, b, c`: candidates joined for messages.
std::string join(std::span<const std::string> items, std::string_view separator = ", ");
std::string join(std::span<const std::string_view> items, std::string_view separator = ", ");

}  // namespace trainsim::inputs
