#pragma once
// Runs a helper program (gnuplot) without a shell: posix_spawnp with stdin from /dev/null and
// stdout and stderr to files the caller names, so neither stream can fill a pipe and block.

#include <filesystem>
#include <string>
#include <vector>

namespace trainsim::documents {

/// The program was not found on PATH (posix_spawnp's ENOENT).
class ProgramNotFound : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How a finished program ended.
struct ProgramExit {
  bool exited = false;  ///< false: killed by a signal
  int status = 0;       ///< the exit status, or the signal's number
};

/// Runs argv[0] (searched on PATH) with `argv`, waits for it and returns how it ended. Throws
/// ProgramNotFound when argv[0] is not on PATH, std::runtime_error on any other failure to
/// start it or to open the output files.
ProgramExit run_program(const std::vector<std::string>& argv,
                        const std::filesystem::path& stdout_file,
                        const std::filesystem::path& stderr_file);

/// A fresh private directory under the system's temporary directory, removed with its
/// contents when the value goes out of scope.
class TemporaryDirectory {
 public:
  explicit TemporaryDirectory(const std::string& prefix);
  ~TemporaryDirectory();
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// A file's contents; throws std::runtime_error naming the path when it cannot be read.
std::string read_file(const std::filesystem::path& path);

}  // namespace trainsim::documents
