#pragma once
// The four Programs of a reduced layout's runs (l, m in {1, 2}) are built for its traffic
// floor and, when the search goes on to estimate the layout, again for its reduced fit: a
// shelf keeps the Programs of the layouts tallied last for their fits. A search estimates the
// front of its order right after tallying it, so most fits find theirs; a fit whose Programs
// were dropped builds them again (the same Programs: only the work differs).

#include <array>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "models/program.hpp"

namespace trainsim::sim {

/// (l, m) = (1,1), (1,2), (2,1), (2,2).
using ReducedPrograms = std::array<program::Program, 4>;

/// Safe to share between threads.
class ProgramShelf {
 public:
  /// Layouts kept at most, the oldest dropped first. A reduced layout's four Programs take up
  /// to a few MB; on the 405B training-time grid 16 saved as much time as 64 (the fits of a
  /// batch follow its tallies) with less memory held.
  static constexpr std::size_t kLayouts = 16;

  /// Keeps the Programs of the reduced layout `key` (its describe()).
  void put(std::string key, std::shared_ptr<const ReducedPrograms> programs) {
    const std::lock_guard lock(mutex_);
    kept_.emplace_back(std::move(key), std::move(programs));
    if (kept_.size() > kLayouts) kept_.pop_front();
  }
  /// Takes the Programs kept for `key` off the shelf; null when none are.
  std::shared_ptr<const ReducedPrograms> take(const std::string& key) {
    const std::lock_guard lock(mutex_);
    for (auto it = kept_.begin(); it != kept_.end(); ++it) {
      if (it->first != key) continue;
      std::shared_ptr<const ReducedPrograms> programs = std::move(it->second);
      kept_.erase(it);
      return programs;
    }
    return nullptr;
  }

 private:
  std::mutex mutex_;
  std::deque<std::pair<std::string, std::shared_ptr<const ReducedPrograms>>> kept_;
};

}  // namespace trainsim::sim
