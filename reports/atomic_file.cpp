#include "reports/atomic_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace trainsim::reports {

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
  // The pid keeps two concurrent writers of the same target from sharing a temporary.
  const std::filesystem::path temporary =
      directory / fmt::format(".{}.tmp.{}", target.filename().string(), ::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) {
      throw std::runtime_error(
          fmt::format("cannot write {}: {}", temporary.string(), std::strerror(errno)));
    }
    try {
      write(out);
    } catch (...) {
      out.close();
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      throw;
    }
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      throw std::runtime_error(fmt::format("failed while writing {}", path.string()));
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

}  // namespace trainsim::reports
