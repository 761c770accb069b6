#pragma once
// Typed errors thrown by library code and caught only in main (style.md §11). Messages start
// lower-case and give the offending value and what would be valid.

#include <filesystem>
#include <stdexcept>
#include <string>

namespace trainsim {

/// Where in an input file a value was written (1-based line and column; 0 when unknown).
struct SourceLocation {
  std::filesystem::path file;
  int line = 0;
  int column = 0;

  /// "file:line:column", or just the file when the position is unknown.
  std::string to_string() const;
};

/// Bad input: names the file, line, column, field, value and what is valid (a location with
/// neither file nor line, for a fact missing from the input as a whole, prints no prefix).
class ConfigError : public std::runtime_error {
 public:
  ConfigError(SourceLocation where, const std::string& message);
  const SourceLocation& where() const { return where_; }
  /// The message without the location prefix.
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

/// A well-formed request that cannot be carried out (does not fit, not divisible, not yet
/// supported); sweeps skip these.
class Infeasible : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace trainsim
