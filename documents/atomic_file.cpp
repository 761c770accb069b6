#include "documents/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <ext/stdio_filebuf.h>
#include <stdexcept>
#include <string>
#include <system_error>

namespace trainsim::documents {
namespace {

/// ".NAME.tmp.", the prefix of every temporary that `target` is written through.
std::string temporary_prefix(const std::filesystem::path& target) {
  return fmt::format(".{}.tmp.", target.filename().string());
}

/// Removes the temporaries of `target` left by writers that no longer run (killed between
/// linking and renaming, or on a filesystem without O_TMPFILE, killed while writing): a
/// ".NAME.tmp.PID" whose process is gone. A live writer's is left alone.
void remove_stale_temporaries(const std::filesystem::path& target) {
  const std::string prefix = temporary_prefix(target);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(target.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix)) continue;
    long pid = 0;
    const char* first = name.data() + prefix.size();
    const char* last = name.data() + name.size();
    const auto [end, parsed] = std::from_chars(first, last, pid);
    if (parsed != std::errc{} || end != last || pid <= 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive
    std::error_code ignored;
    std::filesystem::remove(entry.path(), ignored);
  }
}

/// An open file for the output: an unnamed O_TMPFILE in `directory` where the filesystem has
/// them (a writer killed while writing leaves nothing behind), else the named `temporary`.
struct OutputFile {
  int fd = -1;
  bool named = false;
};

OutputFile open_output(const std::filesystem::path& directory,
                       const std::filesystem::path& temporary) {
#ifdef O_TMPFILE
  // Read-write: should linking fail (no /proc), its bytes are copied to the named temporary.
  const int fd = ::open(directory.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
  if (fd >= 0) return {fd, false};
#endif
  const int named =
      ::open(temporary.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (named < 0) {
    const int error = errno;
    throw std::runtime_error(
        fmt::format("cannot write {}: {}", temporary.string(), std::strerror(error)));
  }
  return {named, true};
}

/// Gives an unnamed file the name `temporary` (linkat through /proc, which needs no
/// privilege); false when that fails.
bool link_unnamed(int fd, const std::filesystem::path& temporary) {
  const std::string proc = fmt::format("/proc/self/fd/{}", fd);
  const auto link = [&] {
    return ::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, temporary.c_str(), AT_SYMLINK_FOLLOW) == 0;
  };
  if (link()) return true;
  if (errno != EEXIST) return false;
  // This process's own leftover from a write that failed after linking: ours to replace.
  std::error_code ignored;
  std::filesystem::remove(temporary, ignored);
  return link();
}

/// Where linking is refused (no /proc in a sandbox): the unnamed file's bytes copied into the
/// named `temporary`; false on any failure.
bool copy_unnamed(int fd, const std::filesystem::path& temporary) {
  if (::lseek(fd, 0, SEEK_SET) != 0) return false;
  const int out =
      ::open(temporary.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (out < 0) return false;
  char block[1 << 16];
  bool ok = true;
  for (;;) {
    const ssize_t n = ::read(fd, block, sizeof block);
    if (n == 0) break;
    if (n < 0 || ::write(out, block, static_cast<std::size_t>(n)) != n) {
      ok = false;
      break;
    }
  }
  ok = ::close(out) == 0 && ok;
  if (!ok) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
  }
  return ok;
}

}  // namespace

void check_destination(const std::filesystem::path& path) {
  if (path.empty()) throw std::runtime_error("cannot write to an empty path");
  const std::filesystem::path directory = std::filesystem::absolute(path).parent_path();
  if (!std::filesystem::is_directory(directory)) {
    throw std::runtime_error(fmt::format("cannot write {}: directory {} does not exist",
                                         path.string(), directory.string()));
  }
}

void write_atomically(const std::filesystem::path& path,
                      const std::function<void(std::ostream&)>& write) {
  check_destination(path);
  const std::filesystem::path target = std::filesystem::absolute(path);
  const std::filesystem::path directory = target.parent_path();
  remove_stale_temporaries(target);
  // The pid keeps two concurrent writers of the same target from sharing a temporary.
  const std::filesystem::path temporary =
      directory / fmt::format("{}{}", temporary_prefix(target), ::getpid());
  const OutputFile file = open_output(directory, temporary);
  const auto discard = [&] {
    if (file.named) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
    }
  };
  {
    // The buffer owns the descriptor and closes it when it goes.
    __gnu_cxx::stdio_filebuf<char> buffer(file.fd, std::ios::out | std::ios::binary);
    std::ostream out(&buffer);
    try {
      write(out);
    } catch (...) {
      discard();
      throw;
    }
    out.flush();
    if (!out) {
      discard();
      throw std::runtime_error(fmt::format("failed while writing {}", path.string()));
    }
    // Named only now that it is whole; the rename below replaces the target in one step.
    if (!file.named && !link_unnamed(file.fd, temporary) && !copy_unnamed(file.fd, temporary)) {
      const int error = errno;
      throw std::runtime_error(
          fmt::format("cannot write {}: {}", temporary.string(), std::strerror(error)));
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, target, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), ec.message()));
  }
}

void write_atomically(const std::filesystem::path& path, std::string_view contents) {
  write_atomically(path, [contents](std::ostream& out) { out << contents; });
}

}  // namespace trainsim::documents
