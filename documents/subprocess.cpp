#include "documents/subprocess.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

extern char** environ;

namespace trainsim::documents {
namespace {

// posix_spawn's file actions, released on every path out.
class FileActions {
 public:
  FileActions() { ::posix_spawn_file_actions_init(&actions_); }
  ~FileActions() { ::posix_spawn_file_actions_destroy(&actions_); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

void check(int error, const std::string& what) {
  if (error != 0) throw std::runtime_error(fmt::format("{}: {}", what, std::strerror(error)));
}

}  // namespace

ProgramExit run_program(const std::vector<std::string>& argv,
                        const std::filesystem::path& stdout_file,
                        const std::filesystem::path& stderr_file) {
  if (argv.empty()) throw std::invalid_argument("run_program: no program given");
  FileActions actions;
  check(::posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0),
        "cannot redirect stdin");
  check(::posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, stdout_file.c_str(),
                                           O_WRONLY | O_CREAT | O_TRUNC, 0600),
        "cannot redirect stdout to " + stdout_file.string());
  check(::posix_spawn_file_actions_addopen(actions.get(), STDERR_FILENO, stderr_file.c_str(),
                                           O_WRONLY | O_CREAT | O_TRUNC, 0600),
        "cannot redirect stderr to " + stderr_file.string());
  std::vector<char*> args;
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int error =
      ::posix_spawnp(&pid, argv[0].c_str(), actions.get(), nullptr, args.data(), environ);
  if (error == ENOENT) throw ProgramNotFound(fmt::format("{} was not found on PATH", argv[0]));
  check(error, "cannot start " + argv[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) check(errno, "cannot wait for " + argv[0]);
  }
  if (WIFEXITED(status)) return {true, WEXITSTATUS(status)};
  return {false, WIFSIGNALED(status) ? WTERMSIG(status) : 0};
}

TemporaryDirectory::TemporaryDirectory(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error(
        fmt::format("cannot create a temporary directory {}: {}", pattern, std::strerror(errno)));
  }
  path_ = pattern;
}

TemporaryDirectory::~TemporaryDirectory() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace trainsim::documents
