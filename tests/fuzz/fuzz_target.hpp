#pragma once
// What every fuzz target shares: a reader may accept an input or reject it with the project's
// typed errors (ConfigError: bad input, located; Infeasible: well-formed but impossible); any
// other exception, a crash, a hang or a sanitizer report is a finding. The same target source
// builds into a libFuzzer binary (clang, -fsanitize=fuzzer) and into a replay program that
// ctest runs over the seeds and the regression inputs on every build (replay_main.cpp).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "models/errors.hpp"

namespace trainsim::fuzz {

/// The input as text (readers take text; embedded NULs and invalid UTF-8 stay in).
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Runs `read`; the typed rejections are the expected outcomes and are swallowed.
template <class Read>
void expect_accept_or_reject(Read&& read) {
  try {
    read();
  } catch (const ConfigError&) {
  } catch (const Infeasible&) {
  }
}

/// A file holding `text` for readers that take a path, in a directory of this process's own
/// (`suffix` names the file: a loader may look at the extension).
std::filesystem::path input_file(std::string_view text, std::string_view suffix);

}  // namespace trainsim::fuzz
