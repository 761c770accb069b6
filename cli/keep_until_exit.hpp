#pragma once
// Handing a command's large results to the process's exit instead of their destructors.

#include <memory>
#include <utility>
#include <vector>

namespace trainsim::cli {

/// Keeps `value` alive until the process exits, never running its destructor: for a command's
/// last, largest structures once its outputs are written and flushed. Destroying a 3072-GPU
/// run's Program and replay result (~1 GB in 64 op lists, their dependency pools and per-op
/// timings) took 0.13-0.2 s of the command's wall time, work the exit then repeats for free:
/// the kernel drops the whole address space at once. Only the CLI calls this; library code
/// and tests free what they allocate. The holder is reachable from a static pointer, so leak
/// checkers count what it keeps as still reachable, not lost.
template <class T>
void keep_until_exit(T value) {
  // A raw pointer, never deleted: a static container's own destructor would run at exit and
  // free everything after all.
  static auto* const kept = new std::vector<std::unique_ptr<T>>();
  kept->push_back(std::make_unique<T>(std::move(value)));
}

}  // namespace trainsim::cli
