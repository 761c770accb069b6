#pragma once
// How long work tells its caller how far it has come: a phase name ("replay", "estimate"), the
// items done and the items in all. The library calls it; only the command line draws it
// (cli/progress_bar.hpp), so nothing below cli/ writes to a terminal.

#include <cstddef>
#include <functional>
#include <string_view>

namespace trainsim::sim {

/// Called as work advances: phase, items done, items in all (done == total ends the phase).
/// May be empty. A caller on several threads serialises its calls.
using Progress = std::function<void(std::string_view phase, std::size_t done, std::size_t total)>;

/// `progress` told (phase, done, total) for each (done, total) of a spread's items
/// (models/spread.hpp); empty when `progress` is. `phase` must outlive the result.
inline std::function<void(std::size_t, std::size_t)> in_phase(const Progress& progress,
                                                              std::string_view phase) {
  if (!progress) return {};
  return [&progress, phase](std::size_t done, std::size_t total) { progress(phase, done, total); };
}

}  // namespace trainsim::sim
