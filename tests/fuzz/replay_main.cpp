// Replays fuzz inputs through a target without libFuzzer: `fuzz_NAME_replay PATH...` feeds
// every file under each PATH (directories recursively, in sorted order) to
// LLVMFuzzerTestOneInput once. An exception other than the typed rejections the target
// swallows fails the run naming the file; a crash fails it too (ctest sees the signal).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {
std::vector<std::filesystem::path> inputs_under(const std::filesystem::path& path) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(path)) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(path);
  }
  return files;
}
}  // namespace

int main(int argc, char** argv) {
  std::size_t count = 0;
  for (int a = 1; a < argc; ++a) {
    const std::filesystem::path root(argv[a]);
    if (!std::filesystem::exists(root)) {
      std::fprintf(stderr, "no such input: %s\n", argv[a]);
      return 2;
    }
    for (const std::filesystem::path& file : inputs_under(root)) {
      std::ifstream in(file, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
      // Named before it runs, so that a crash (an abort, a sanitizer report) names it too.
      std::fprintf(stderr, "%s\n", file.c_str());
      try {
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: unexpected exception: %s\n", file.c_str(), e.what());
        return 1;
      } catch (...) {
        std::fprintf(stderr, "%s: unexpected exception of a non-standard type\n", file.c_str());
        return 1;
      }
      ++count;
    }
  }
  std::printf("%zu inputs replayed, none crashed or threw an unexpected exception\n", count);
  return 0;
}
