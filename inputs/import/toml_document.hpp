#pragma once
// Internal to inputs/import/: a TOML file as the torchtitan importer reads it (toml++). Parsing
// with located errors (after a pre-scan for nesting toml++ cannot survive), typed reads that
// throw "path = value: expected ..." at file:line:column, and the record of which keys were
// read, so that every other key can be listed.

// Debian's libtomlplusplus-dev 3.3 ships <toml++/toml.h>; toml++ 3.4 added the .hpp name.
#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h>
#endif

#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/errors.hpp"

namespace trainsim::inputs::import::detail {

/// `s` with control characters and the Unicode line breaks escaped, cut at 80 characters (on a
/// UTF-8 boundary): text as it may appear in a message or a YAML comment.
std::string escaped(std::string_view s);

/// A float as TOML and YAML write it: "1.0", "0.0003", "1e-08", "inf", "nan".
std::string number_text(double d);

/// The document in `text` (read from `file`). Throws ConfigError at file:line:column for
/// invalid TOML and for keys or inline tables nested deeper than a torchtitan config's.
toml::table parse_toml(std::string_view text, const std::filesystem::path& file);

/// One TOML key: its dotted path and its value (null when the key is absent).
struct Setting {
  std::string path;
  const toml::node* node = nullptr;
};

/// A parsed document and what has been read of it.
class TomlDocument {
 public:
  TomlDocument(const toml::table& root, std::filesystem::path file)
      : root_(root), file_(std::move(file)) {}

  const std::filesystem::path& file() const { return file_; }

  /// The value at dotted `path` ("parallelism.tensor_parallel_degree"), marked as read; null
  /// when absent. Throws when a section on the way is not a table.
  const toml::node* node(std::string_view path);

  /// The first of `names` (a key and its older names) present in the file, or the first
  /// name with no value. Two names of one setting both present is an error.
  Setting find(std::initializer_list<std::string_view> names);
  Setting find(std::string_view name) { return find({name}); }

  SourceLocation where(const toml::node& n) const;
  SourceLocation where(const Setting& s) const;

  /// "training.seq_len = 8192 (llama3_8b.toml:31)".
  std::string origin(const Setting& s) const;

  /// Throws ConfigError at `s`: "path = value: expected".
  [[noreturn]] void fail(const Setting& s, std::string_view expected) const;

  std::int64_t integer(const Setting& s, std::int64_t min, std::int64_t max,
                       std::string_view meaning) const;
  bool boolean(const Setting& s) const;
  std::string string(const Setting& s, std::string_view expected) const;
  /// A string that must be one of `choices` (compared as written).
  std::string choice(const Setting& s, std::initializer_list<std::string_view> choices) const;
  double number(const Setting& s, double min, std::string_view meaning) const;
  std::vector<std::string> strings(const Setting& s, std::string_view meaning) const;

  /// Every key of the file (of section `section`: a bare dotted path) not read, in file
  /// order: (dotted path, value).
  std::vector<Setting> unread(std::string_view section = {}) const;

  /// Marks `path` (as unread() writes it) as read.
  void mark(const std::string& path) { read_.insert(path); }

  /// Whether the file holds dotted `path` (bare keys), without marking it read.
  bool has(std::string_view path) const { return lookup(path) != nullptr; }

 private:
  const toml::node* lookup(std::string_view path) const;
  void collect(const toml::table& table, const std::string& prefix, int depth,
               std::vector<Setting>& out) const;

  const toml::table& root_;
  std::filesystem::path file_;
  std::set<std::string, std::less<>> read_;
};

}  // namespace trainsim::inputs::import::detail
