#include "fuzz_target.hpp"

#include <unistd.h>

#include <fstream>
#include <string>

namespace trainsim::fuzz {

std::filesystem::path input_file(std::string_view text, std::string_view suffix) {
  // One directory per process, made once: the targets run single-threaded.
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() /
             ("trainsim-fuzz-" + std::to_string(static_cast<long>(::getpid())));
    std::filesystem::create_directories(d);
    return d;
  }();
  const std::filesystem::path file = dir / ("input" + std::string(suffix));
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  return file;
}

}  // namespace trainsim::fuzz
