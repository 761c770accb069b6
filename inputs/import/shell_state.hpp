#pragma once
// Internal to inputs/import/: the state of one run of a launch script through the bash reader
// (shell_script.cpp): its variables and arrays, the notes on what could not be known, the last
// exit status, and the budget that caps what hostile expansions may produce.

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "inputs/import/shell_text.hpp"

namespace trainsim::inputs::import::detail {

struct Variable {
  std::vector<Text> elements;  ///< a scalar has one
  bool exported = false;

  /// The value as `variables` reports it: an array's elements joined by a space.
  std::string joined() const;
};

/// Variables, notes, the last exit status and the expansion budget of one run of a script.
class Shell {
 public:
  explicit Shell(const Script& script) : script_(script) {}
  const Script& script() const { return script_; }

  const Variable* find(const std::string& name) const {
    const auto it = variables_.find(name);
    return it == variables_.end() ? nullptr : &it->second;
  }

  /// NAME=value (sets element 0 of an array, as bash does) or NAME+=value.
  void assign(const std::string& name, const Text& value, bool append, Position at);
  /// NAME=( ... ) or NAME+=( ... ).
  void assign_array(const std::string& name, std::vector<Text> elements, bool append, Position at);
  void mark_exported(const std::string& name, Position at);
  void unset(const std::string& name, Position at);

  /// Starts journaling changes, so that the variables as they are now can be had back later
  /// (the training command's view) without copying them at every candidate command.
  void mark() {
    journal_.clear();
    marked_ = true;
  }
  /// The variables as they were at the last mark().
  std::map<std::string, Variable> variables_at_mark() const;

  void note(std::string message) { notes_.push_back(std::move(message)); }
  /// Whether a note about `key` is yet to be made (an environment variable is noted once, however
  /// often it is read); the caller then makes it.
  bool first_note_about(const std::string& key) { return noted_.insert(key).second; }
  const std::vector<std::string>& notes() const { return notes_; }

  /// Counts `bytes` of expansion output against the script's budget.
  void charge(std::size_t bytes, Position at);
  /// Throws when `text` (one word or value) has grown beyond what a launch script holds.
  void check_size(const Text& text, Position at) const;

  int last_status = 0;

 private:
  /// Journals `name`'s value before a change, after a mark().
  void remember(const std::string& name, Position at);

  const Script& script_;
  std::map<std::string, Variable> variables_;
  bool marked_ = false;
  std::vector<std::pair<std::string, std::optional<Variable>>> journal_;
  std::vector<std::string> notes_;
  std::set<std::string> noted_;
  std::size_t spent_ = 0;
};

}  // namespace trainsim::inputs::import::detail
