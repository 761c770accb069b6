#include "fuzz_target.hpp"

#include <unistd.h>

#include <fstream>
#include <string>

namespace trainsim::fuzz {

std::filesystem::path input_file(std::string_view text, std::string_view suffix) {
  // One directory per process, made once (the targets run single-threaded) and removed at
  // exit: fuzzing leaves nothing behind either.
  struct Directory {
    std::filesystem::path path = std::filesystem::temp_directory_path() /
                                 ("trainsim-fuzz-" + std::to_string(static_cast<long>(::getpid())));
    Directory() { std::filesystem::create_directories(path); }
    ~Directory() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Directory dir;
  const std::filesystem::path file = dir.path / ("input" + std::string(suffix));
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  return file;
}

}  // namespace trainsim::fuzz
