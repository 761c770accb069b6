// `fuzz_dictionary_check DICT`: fails naming every scenario key (each component of every
// parameter path) and every choice of the parameter table (inputs/parameters.hpp) that
// DICT, scenario.dict of libFuzzer's -dict, lacks as a "token" line. `--print` writes the
// tokens the table needs, for regenerating the file.

#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <string>

#include "inputs/parameters.hpp"

namespace {
std::set<std::string> needed_tokens() {
  std::set<std::string> tokens;
  for (const trainsim::inputs::Parameter& p : trainsim::inputs::scenario_parameters()) {
    std::string_view path = p.path;
    while (!path.empty()) {
      const std::size_t dot = path.find('.');
      tokens.emplace(path.substr(0, dot));
      path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    }
    for (const std::string_view choice : p.choices)
      tokens.emplace(choice);
  }
  return tokens;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--print") == 0) {
    for (const std::string& t : needed_tokens())
      std::printf("\"%s\"\n", t.c_str());
    return 0;
  }
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_dictionary_check DICT | --print\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  std::set<std::string> present;
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() >= 2 && line.front() == '"' && line.back() == '"') {
      present.insert(line.substr(1, line.size() - 2));
    }
  }
  int missing = 0;
  for (const std::string& t : needed_tokens()) {
    if (present.count(t) == 0) {
      std::fprintf(stderr, "%s lacks \"%s\" (a scenario key or choice)\n", argv[1], t.c_str());
      ++missing;
    }
  }
  if (missing > 0) return 1;
  std::printf("%s holds every scenario key and choice\n", argv[1]);
  return 0;
}
